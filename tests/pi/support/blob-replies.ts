import type { RecordedRequest, ScriptedReply } from '../../../testing/pi/scripted-pi.ts';

/**
 * The scripted model's reply that reads one more large blob: a `fetch_blob` call seeded by the
 * request's index, so every request adds a different result of `size` bytes to the window.
 */
export const readBlob = (request: RecordedRequest, size = 24_000): ScriptedReply => ({
  kind: 'tools',
  calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size } }],
});
