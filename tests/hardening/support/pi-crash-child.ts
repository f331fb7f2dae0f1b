/**
 * A real Pi session (scripted provider, pi-fold with the filesystem stores beside the session
 * file) that reads blobs until it is killed. Every store write is announced and slowed so a
 * parent can SIGKILL it inside a chosen phase:
 *
 *   begin <blob|fold|state|evidence>   a write is under way (the store call has not returned)
 *   end <kind>                         it returned
 *   session <file> <id>                the session file this run appends to
 *   violation <text>                   a projection broke docs/behaviour.md I1 or I3 (must never appear)
 *
 *   node --import tsx pi-crash-child.ts <sessionDirectory> <sessionFile|new> <seed> <slowMs>
 */
import { join } from 'node:path';
import { FsEvidenceStore } from '../../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../../adapters/backends/storage-fs/fs-fold-store.ts';
import type { Projection } from '../../../ports/projection-sink.port.ts';
import { FaultyEvidenceStore, FaultyFoldStore, type WriteHooks } from '../../../testing/faulty-stores.ts';
import { openScriptedPi, settle } from '../../../testing/pi/scripted-pi.ts';
import { seededRandom } from '../../../testing/synthetic-session.ts';
import { appendOnlyViolations, pairingViolations } from '../../../testing/window-checks.ts';
import { readingScript, SMALL_BUDGET_SETTINGS, withoutHostOrphans } from './pi-sessions.ts';

const [sessionDirectory, sessionFileArgument, seedText, slowText] = process.argv.slice(2);
if (
  sessionDirectory === undefined ||
  sessionFileArgument === undefined ||
  seedText === undefined ||
  slowText === undefined
) {
  console.error('usage: pi-crash-child.ts <sessionDirectory> <sessionFile|new> <seed> <slowMs>');
  process.exit(2);
}
const random = seededRandom(Number(seedText));
const slowMs = Number(slowText);
const say = (line: string) => process.stdout.write(`${line}\n`);
const pause = () => new Promise((resolve) => setTimeout(resolve, Math.floor(random() * slowMs)));

// Half the delay before the real write and half after, so a kill inside a phase lands
// before, during or just after the bytes reach the disk.
const hooks: WriteHooks = {
  before: async (kind) => {
    say(`begin ${kind}`);
    await pause();
  },
  after: async (kind) => {
    await pause();
    say(`end ${kind}`);
  },
};
const root = join(sessionDirectory, 'pi-fold');
let previous: Projection | undefined;
let sessionManager: Parameters<typeof withoutHostOrphans>[1] | undefined;
const pi = await openScriptedPi({
  script: readingScript(() => 6),
  // Each process gets its own call ids, as a real provider's are unique across a session.
  toolCallIdPrefix: `call_${process.pid}_`,
  sessionDirectory,
  ...(sessionFileArgument === 'new' ? {} : { sessionFile: sessionFileArgument }),
  fold: {
    foldStore: new FaultyFoldStore(new FsFoldStore({ root }), { hooks }),
    evidenceStore: new FaultyEvidenceStore(new FsEvidenceStore({ root }), { hooks }),
    settings: SMALL_BUDGET_SETTINGS,
    settingsPath: join(sessionDirectory, 'absent-settings.json'),
    projectionSink: {
      specificationVersion: 'v1',
      accept: (projection) => {
        const pairing =
          sessionManager === undefined
            ? { violations: pairingViolations(projection.messages), orphans: 0 }
            : withoutHostOrphans(pairingViolations(projection.messages), sessionManager);
        const found = [
          ...(previous === undefined ? [] : appendOnlyViolations([previous, projection])),
          ...pairing.violations,
        ];
        for (const violation of found) say(`violation ${violation}`);
        if (pairing.orphans > 0) say(`orphan ${pairing.orphans}`);
        previous = projection;
      },
    },
  },
});
sessionManager = pi.sessionManager;
say(`session ${pi.sessionManager.getSessionFile()} ${pi.sessionManager.getSessionId()}`);
say('ready');
for (let prompt = 0; ; prompt += 1) {
  await pi.session.prompt(`Read more blobs (${seedText}.${prompt}).`);
  await settle(pi.session);
  for (const error of pi.errors.splice(0)) say(`violation extension error: ${error}`);
}
