import type { TranscriptEntry } from '../../../ports/transcript-entry.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../../testing/synthetic-session.ts';

/**
 * A branch of `count` entries in rounds of one user turn, one tool call and its result of
 * `resultChars` chars: the same bytes under the same ids on every call, so a process that
 * reopens a session is handed the branch the last one saw.
 */
export function readRounds(count: number, resultChars: number): TranscriptEntry[] {
  const random = seededRandom(46);
  const entries: TranscriptEntry[] = [];
  for (let round = 0; entries.length < count; round += 1) {
    const call = { id: `call_${round}`, name: 'read', arguments: { path: `src/file_${round}.ts` } };
    entries.push(
      userEntry(`u${round}`, `Look at file ${round} and say what it does.`),
      assistantEntry(`a${round}`, '', [call]),
      toolResultEntry(`r${round}`, call.id, 'read', sourceLikeText(random, resultChars, `file ${round}`)),
    );
  }
  return entries.slice(0, count);
}
