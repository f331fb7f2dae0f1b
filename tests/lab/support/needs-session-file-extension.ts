import { isAbsolute } from 'node:path';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';

/**
 * A peer that, like the published pi-fold, keeps its evidence beside the Pi session file
 * and refuses to run without one: every tool result it sees checks that the session has a
 * file at an absolute path.
 */
export default function needsSessionFile(pi: ExtensionAPI): void {
  pi.on('tool_result', (_event, ctx) => {
    const file = ctx.sessionManager.getSessionFile();
    if (file === undefined || !isAbsolute(file))
      throw new Error(`this peer needs a Pi session file, got ${String(file)}`);
    return undefined;
  });
}
