import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as pi from '../../adapters/hosts/pi/index.ts';
import * as piInternal from '../../adapters/hosts/pi/internal.ts';
import * as vercelAi from '../../adapters/hosts/vercel-ai/index.ts';
import * as vercelAiInternal from '../../adapters/hosts/vercel-ai/internal.ts';
import * as core from '../../core/index.ts';
import * as coreInternal from '../../core/internal.ts';
import { unexportedReachableTypes } from './support/public-types.ts';

const root = resolve(import.meta.dirname, '../..');

describe('the public entries name what a user meets, and only that', () => {
  it('every named type reachable from a public entry is exported by one', { timeout: 180_000 }, () => {
    const { missing, diTypes, checkedEntries } = unexportedReachableTypes(root);
    expect(checkedEntries).toContain('core/index.ts');
    expect(checkedEntries).toContain('composition/index.ts');
    expect(checkedEntries).not.toContain('core/internal.ts');
    expect(missing, `reachable but not exported:\n${missing.join('\n')}`).toEqual([]);
    // DI stays at the composition root: hosts pass a store scope and read ports as values.
    expect(diTypes, `tsyringe types reachable from a public entry:\n${diTypes.join('\n')}`).toEqual([]);
  });

  it('helpers (hashing, ids, budget arithmetic, mappers, id prefixes, version probes) are in the internal entries, not the main ones', () => {
    const moved: [Record<string, unknown>, Record<string, unknown>, readonly string[]][] = [
      [
        core,
        coreInternal,
        [
          'sha256Hex',
          'stableStringify',
          'foldIdFor',
          'sourceDigest',
          'servingBudget',
          'outputReservation',
          'priceRequest',
        ],
      ],
      [
        pi,
        piInternal,
        [
          'PiEntryMapper',
          'canonicalBytes',
          'UNMATCHED_ID_PREFIX',
          'toPiMessages',
          'foldToolParameters',
          'RECOVERY_SUMMARY_MARK',
        ],
      ],
      [
        vercelAi,
        vercelAiInternal,
        [
          'MessageEntryMapper',
          'ProjectedMessageConverter',
          'canonicalBytes',
          'createUsageMiddleware',
          'requestUsage',
          'stepHistory',
          'AI_SDK_MAJOR',
          'MIDDLEWARE_SPECIFICATION',
        ],
      ],
    ];
    for (const [main, internal, names] of moved) {
      for (const name of names) {
        expect(Object.keys(main), name).not.toContain(name);
        expect(Object.keys(internal), name).toContain(name);
      }
    }
    // What hosts build on stays where it was.
    expect(Object.keys(core)).toEqual(
      expect.arrayContaining(['FoldError', 'FoldRuntime', 'resolveSettings', 'createCharsCostModel', 'readFoldSource']),
    );
    expect(Object.keys(pi)).toEqual(
      expect.arrayContaining(['default', 'registerPiFold', 'PiSessionRegistry', 'projectionCandidates']),
    );
    expect(Object.keys(vercelAi)).toEqual(
      expect.arrayContaining(['createFolding', 'foldingAgentSettings', 'createFoldContextTool']),
    );
  });
});
