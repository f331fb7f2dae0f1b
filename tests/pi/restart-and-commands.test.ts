import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolResultMessage } from '@mariozechner/pi-ai';
import { describe, expect, it } from 'vitest';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import { KEEP_BLOBS_RAW, openScriptedPi, type RecordedRequest, settle } from '../../testing/pi/scripted-pi.ts';
import { readBlob } from './support/blob-replies.ts';

describe('pi: durable state across a restart on the same session file', () => {
  it.each([
    ['a shared in-memory store', () => new MemoryFoldStore()],
    ['the default filesystem store beside the session file', () => undefined],
  ])(
    'restores folds, marks and pins with %s, and expanding a fold after the restart returns its exact messages',
    async (_label, makeStore) => {
      const store = makeStore();
      const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-sessions-'));
      const settingsPath = join(sessionDirectory, 'no-settings.json');
      const first = await openScriptedPi({
        script: (request) => (request.index >= 40 ? { kind: 'text', text: 'first run done' } : readBlob(request)),
        fold: { ...(store === undefined ? {} : { foldStore: store }), settingsPath, settings: KEEP_BLOBS_RAW },
        sessionDirectory,
      });
      await first.session.prompt('Read blobs.');
      await settle(first.session);
      const before = await first.registration.sessions.forSession(first.sessionManager);
      const pinned = before.runtime.view.index.entries.at(-1)!.id;
      await before.runtime.act({ action: 'pin', ids: [pinned] }, { origin: 'user' });
      const folds = before.runtime.view.visibleFolds.map((placed) => placed.record.id).sort();
      const marks = before.runtime.view.memory.marks.map((mark) => mark.id).sort();
      expect(folds.length).toBeGreaterThan(0);
      expect(marks.length).toBeGreaterThan(0);
      const sessionFile = first.sessionManager.getSessionFile()!;
      first.session.dispose();

      let target = '';
      let expandedRequest: RecordedRequest | undefined;
      const second = await openScriptedPi({
        script: (request) => {
          if (request.index === 0) {
            target = folds[0]!;
            return { kind: 'tools', calls: [{ name: 'pi_fold_context', arguments: { action: 'expand', id: target } }] };
          }
          if (request.index === 1) expandedRequest = request;
          return { kind: 'text', text: 'second run done' };
        },
        // No spill setting here: the reopened session keeps the policy stored with its state.
        fold: { ...(store === undefined ? {} : { foldStore: store }), settingsPath },
        sessionFile,
        sessionDirectory,
      });
      // Opened on the same session file: state comes back before any request is made.
      const after = await second.registration.sessions.forSession(second.sessionManager);
      expect(after.sessionId).toBe(before.sessionId);
      expect(after.runtime.view.memory.pins.has(pinned)).toBe(true);
      expect([...after.runtime.view.memory.marks.map((mark) => mark.id)].sort()).toEqual(marks);
      expect([...after.runtime.view.lattice.allRecords()].map((record) => record.id).sort()).toEqual(
        [...before.runtime.view.lattice.allRecords()].map((record) => record.id).sort(),
      );
      // /fold-status before this process's first request answers from the stored folds.
      await second.session.prompt('/fold-status');
      expect(second.requests.length).toBe(0);
      expect(second.notices.at(-1)).toMatch(
        /^budget 183616 tokens \(from the last request's context window\) · occupancy unknown/,
      );
      expect(second.notices.at(-1)).toContain(`visible folds ${folds.length}:`);
      await second.session.prompt('Continue.');
      await settle(second.session);
      // The first request after the restart already shows the same folds (placeholders by id).
      const firstWindow = second.requests[0]!.serialized.join('\n');
      for (const id of folds) expect(firstWindow).toContain(id);
      const expandAnswer = [...expandedRequest!.messages]
        .reverse()
        .find((message) => message.role === 'toolResult') as ToolResultMessage;
      expect(expandAnswer.isError).toBe(false);
      const record = after.runtime.view.lattice.record(target)!;
      for (const part of record.parts) {
        if (part.kind !== 'entry') continue;
        const entry = second.sessionManager.getEntry(part.entryId);
        expect(entry?.type).toBe('message');
        if (entry?.type === 'message') expect(expandedRequest!.serialized).toContain(JSON.stringify(entry.message));
      }
      expect(second.errors).toEqual([]);
      if (store === undefined) expect(existsSync(join(sessionDirectory, 'pi-fold'))).toBe(true);
    },
    120_000,
  );
});

describe('pi: commands, settings file and evidence', () => {
  it('/fold-status reports, /fold commits at the next request, evidence is stored, /fold-settings validates', async () => {
    const configDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-config-'));
    const settingsPath = join(configDirectory, 'settings.json');
    const evidence = new MemoryEvidenceStore();
    let stop = 12;
    const pi = await openScriptedPi({
      script: (request) => (request.index >= stop ? { kind: 'text', text: 'ok' } : readBlob(request, 20_000)),
      fold: { foldStore: new MemoryFoldStore(), evidenceStore: evidence, settingsPath },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const folding = await pi.registration.sessions.forSession(pi.sessionManager);
    // Spill: Pi's session keeps every 20 KB result exactly as the tool produced it (no line
    // appended); the engine stored the result's text as evidence under its sha256.
    const result = pi.sessionManager
      .getBranch()
      .find((entry) => entry.type === 'message' && entry.message.role === 'toolResult');
    const content = result?.type === 'message' && result.message.role === 'toolResult' ? result.message.content : [];
    expect(content).toHaveLength(1);
    const text = (content[0] as { text: string }).text;
    expect(Buffer.byteLength(text)).toBe(20_000);
    expect(Buffer.from(await evidence.get(folding.sessionId, sha256Hex(text))).toString('utf8')).toBe(text);

    pi.notices.length = 0;
    await pi.session.prompt('/fold-status');
    expect(pi.notices.at(-1)).toMatch(/^budget 183616 tokens · occupancy [\d.]+% /);
    expect(pi.notices.at(-1)).toMatch(/pending marks [1-9]\d*:/);
    const marksBefore = folding.runtime.view.memory.marks.length;
    await pi.session.prompt('/fold bogus_id');
    expect(pi.notices.at(-1)).toMatch(/bogus_id is not pending marks|bogus_id is not/);
    await pi.session.prompt('/fold');
    expect(pi.notices.at(-1)).toMatch(new RegExp(`${marksBefore} pending marks will land in one rewrite`));
    stop = Number.POSITIVE_INFINITY;
    const requestsBefore = pi.requests.length;
    stop = requestsBefore;
    await pi.session.prompt('Go on.');
    await settle(pi.session);
    const row = pi.ledger[requestsBefore]!;
    expect(row.causes).toContain('user-fold');
    expect(row.foldsLanded).toBeGreaterThan(0);
    expect(folding.runtime.view.memory.marks.length).toBeLessThan(marksBefore);

    const candidates = await pi.registration.projectionCandidates({ sessionManager: pi.sessionManager });
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates[0]).toMatchObject({
      version: 1,
      kind: 'projection',
      domain: 'system',
      horizon: 'working',
      confidence: 'exact',
      freshness: 'current',
      locked_owner: false,
      generator_version: 'memory-slate-generators-v2',
      recency: null,
      rank: 0,
    });
    expect(candidates[0]!.key).toBe(`projection:${candidates[0]!.source_id}`);
    expect(candidates[0]!.route).toEqual({
      tool: 'pi_fold_context',
      arguments: { action: 'expand', id: candidates[0]!.source_id },
    });
    await pi.session.prompt('/fold-settings');
    expect(pi.notices.at(-1)).toMatch(/no file yet; defaults apply/);
    await pi.session.prompt('/fold-settings maxTarget=0.3 minTarget=0.5');
    expect(pi.notices.at(-1)).toMatch(/refused, nothing written: .*minTarget \(0.5\) must be below maxTarget \(0.3\)/);
    await pi.session.prompt('/fold-settings maxTarget=0.7 minTarget=0.3');
    expect(JSON.parse(readFileSync(settingsPath, 'utf8'))).toEqual({
      thresholds: { maxTarget: 0.7, minTarget: 0.3, consolidateAfter: 10, minFoldChars: 8000 },
    });
    // An old file (a retired key, a missing one) is migrated whole; an invalid one is left alone.
    writeFileSync(
      settingsPath,
      JSON.stringify({ thresholds: { maxTarget: 0.75, minTarget: 0.35, minFoldChars: 9000, freshTail: 4 } }),
    );
    await pi.session.prompt('/fold-settings');
    expect(pi.notices.at(-1)).toMatch(
      /migrated from an older release \(added consolidateAfter at defaults; dropped retired freshTail\)/,
    );
    expect(JSON.parse(readFileSync(settingsPath, 'utf8'))).toEqual({
      thresholds: { maxTarget: 0.75, minTarget: 0.35, consolidateAfter: 10, minFoldChars: 9000 },
    });
    const invalid = JSON.stringify({
      thresholds: { maxTarget: 2, minTarget: 0.4, consolidateAfter: 10, minFoldChars: 8000 },
    });
    writeFileSync(settingsPath, invalid);
    await pi.session.prompt('/fold-settings');
    expect(pi.notices.at(-1)).toMatch(
      /the file is invalid and was left alone; defaults apply\. Reason: .*maxTarget must be a number in \(0, 1\], got 2/,
    );
    expect(readFileSync(settingsPath, 'utf8')).toBe(invalid);
    expect(pi.errors).toEqual([]);
  }, 120_000);
});
