import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtensionCommandContext } from '@mariozechner/pi-coding-agent';
import { renderViewerPage } from '../../../application/viewer/render-viewer-page.ts';
import { describeViewCounts, emptyViewerSession } from '../../../application/viewer/view-counts.ts';
import { readViewerSession } from '../../../application/viewer/viewer-session.ts';
import { FoldError } from '../../../core/fold-error.ts';
import { DEFAULT_PRICE_LIST } from '../../../core/pricing/price-lists.ts';
import { type PiSessionRegistry, STORE_FOLDER } from './session-registry.ts';

/**
 * `/fold-view`: write the session viewer's page for the current session (what `pi-fold view`
 * writes from a store) and print its path. Reads the session's store; writes only the page,
 * beside the store for a persisted session, else in the temp directory.
 */
export async function foldViewCommand(ctx: ExtensionCommandContext, registry: PiSessionRegistry): Promise<void> {
  const folding = await registry.forSession(ctx.sessionManager);
  try {
    // The newest request's row is still buffered; the page should show it.
    await folding.composed.flushRequestLog();
    // The backing store: the request log lives there, outside the session's size caps.
    const store = folding.composed.ports.backingFoldStore;
    // Nothing is stored for a session before its first request: that is an empty page, not an error.
    const unsaved = folding.runtime.view.memory.counters.requests === 0;
    const view = await readViewerSession(store, folding.sessionId).catch((error: unknown) => {
      if (unsaved && FoldError.isInstance(error) && error.code === 'STORE.NOT_FOUND')
        return emptyViewerSession(folding.sessionId, store.name);
      throw error;
    });
    const page = renderViewerPage(view, {
      priceLineTokens: DEFAULT_PRICE_LIST.longContext?.aboveTokens,
      prices: DEFAULT_PRICE_LIST,
      writtenAt: new Date().toISOString(),
    });
    const persisted = ctx.sessionManager.getSessionFile() !== undefined;
    const directory = persisted
      ? join(ctx.sessionManager.getSessionDir(), STORE_FOLDER, 'views')
      : join(tmpdir(), 'pi-fold-views');
    await mkdir(directory, { recursive: true });
    const path = join(directory, `${folding.sessionId}.html`);
    await writeFile(path, page, 'utf8');
    const counts =
      view.requests.length === 0 && view.folds.length === 0
        ? 'nothing folded yet (no request has been made in this session); the empty page'
        : describeViewCounts(view);
    ctx.ui.notify(`/fold-view: ${counts} → ${path}`, 'info');
  } catch (error) {
    ctx.ui.notify(`/fold-view: could not write the page: ${(error as Error).message}`, 'error');
  }
}
