import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { type BranchContext, readBranchContext } from '../../adapters/hosts/pi/landing/branch-context.ts';
import { BranchReader } from '../../adapters/hosts/pi/landing/branch-reader.ts';
import { editingSessionManager } from '../../adapters/hosts/pi/landing/editing-session.ts';
import {
  KEEP_BLOBS_RAW,
  openScriptedPi,
  PI_VERSION,
  type RecordedRequest,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import { hasContextEdits } from './support/turn-end-edits.ts';

/**
 * The edit landing reads the branch at the cost of what was appended (BranchReader); what it
 * reads must be what a full read of Pi's projection gives, request after request, through
 * commits, spills, notices, a `/tree` jump and a branch summary.
 */

const edits = hasContextEdits(PI_VERSION);
const shown = () => true;

function comparable(context: BranchContext) {
  return {
    items: context.items.map((item) => ({
      entryId: item.entryId,
      insert: item.insert,
      userLike: item.userLike,
      editable: item.editable,
      systemsBefore: item.systemsBefore,
      state: JSON.stringify(item.state),
      raw: JSON.stringify(item.raw),
    })),
    raw: context.rawMessages.map(({ entryId, message }) => `${entryId} ${JSON.stringify(message)}`),
    projected: context.projected.map((message) => JSON.stringify(message)),
    systemMessages: context.systemMessages,
  };
}

describe.skipIf(!edits)(`pi: the branch reader matches a full read (Pi ${PI_VERSION})`, () => {
  it('request after request, across commits, a /tree jump and a summary of the branch left', async () => {
    let stopAt = 40;
    const reader = new BranchReader();
    const compared: number[] = [];
    let incremental = 0;
    // Runs after pi-fold's context handler, so it sees what pi-fold's landing just appended.
    const checker = (api: ExtensionAPI) => {
      api.on('context', (_event, ctx) => {
        const manager = editingSessionManager(ctx.sessionManager)!;
        const read = reader.read(manager, shown);
        if (read.unchangedPrefix > 0) incremental += 1;
        expect(comparable(read)).toEqual(comparable(readBranchContext(manager, shown)));
        compared.push(read.items.length);
      });
    };
    const script = (request: RecordedRequest): ScriptedReply =>
      request.serialized.some((line) => line.includes('<conversation>'))
        ? { kind: 'text', text: 'SUMMARY' }
        : request.index >= stopAt
          ? { kind: 'text', text: 'done' }
          : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 24_000 } }] };
    const pi = await openScriptedPi({
      script,
      fold: {
        foldStore: new MemoryFoldStore(),
        settingsPath: '/nonexistent/pi-fold/settings.json',
        settings: KEEP_BLOBS_RAW,
      },
      otherExtensions: { after: [checker] },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const branch = pi.sessionManager.getBranch();
    const middle = branch.filter((entry) => entry.type === 'message' && entry.message.role === 'toolResult')[10]!;
    await pi.session.navigateTree(middle.id, { summarize: true });
    stopAt = pi.requests.length + 3;
    await pi.session.prompt('Read three more.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    expect(compared.length).toBeGreaterThan(40);
    // Most reads built on the one before (the branch only grew between them).
    expect(incremental).toBeGreaterThan(compared.length / 2);
    expect(pi.sessionManager.getBranch().some((entry) => (entry.type as string) === 'context_edit')).toBe(true);
  }, 120_000);
});
