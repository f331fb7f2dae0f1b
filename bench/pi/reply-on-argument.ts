/**
 * `--reply-on next-turn|microtask`: when the scripted model's reply reaches Pi. A provider's
 * reply is read from a socket, so the event loop turns before Pi sees it and file writes
 * under way in the background (evidence artifacts, blobs written ahead) make progress; the
 * scripted provider's old microtask reply never let the loop turn, so those writes stood still
 * until a commit request waited for them. Both Pi benchmarks default to `next-turn` and name
 * the mode they ran in; `microtask` gives the earlier figures.
 */
export type ReplyOn = 'microtask' | 'next-turn';

export function replyOnArgument(argv: readonly string[] = process.argv): ReplyOn {
  const at = argv.indexOf('--reply-on');
  if (at < 0) return 'next-turn';
  const value = argv[at + 1];
  if (value === 'microtask' || value === 'next-turn') return value;
  throw new Error(`--reply-on takes next-turn or microtask, got ${JSON.stringify(value ?? null)}`);
}
