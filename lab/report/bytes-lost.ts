import type { ByteAccounting } from './lab-records.ts';

const integer = (value: number): string => Math.round(value).toLocaleString('en-US');
const count = (value: number, noun: string, plural = `${noun}s`): string =>
  `${integer(value)} ${value === 1 ? noun : plural}`;

/**
 * One arm's "bytes lost" in words, as the text table, the HTML report and the replay
 * reports read it: for a fold arm, of how many folded (and spilled) bytes; for an arm Pi's
 * compaction managed, what the compaction summarised away, which nothing can give back.
 */
export function bytesLostLine(arm: string, bytes: ByteAccounting): string {
  const parts: string[] = [];
  if (bytes.folds > 0 || bytes.spills > 0) {
    parts.push(`of ${integer(bytes.foldedBytes)} folded bytes, ${count(bytes.folds, 'fold')}`);
    if (bytes.spills > 0) parts.push(`${integer(bytes.spilledBytes)} spilled bytes, ${count(bytes.spills, 'spill')}`);
  }
  if (bytes.compactedEntries > 0) {
    parts.push(
      `${integer(bytes.compactedBytes)} bytes of ${count(bytes.compactedEntries, 'entry', 'entries')} summarised away by ${count(bytes.compactions, 'compaction')}, no longer in the window`,
    );
  }
  if (parts.length === 0)
    parts.push(`nothing left the window: all ${integer(bytes.transcriptBytes)} transcript bytes are in it`);
  const first = bytes.problems[0];
  return `${arm}: bytes lost: ${integer(bytes.lostBytes)} (${parts.join('; ')})${first === undefined ? '' : `; first problem: ${first}`}`;
}
