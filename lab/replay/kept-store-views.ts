import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { renderViewerPage } from '../../application/viewer/render-viewer-page.ts';
import { readViewerSession } from '../../application/viewer/viewer-session.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import type { ViewerLink } from '../report/report-headline.ts';

/** Where a replay under `--out` keeps its fold arms' stores, one directory per arm. */
export function keptStoresDirectory(outDirectory: string): string {
  return join(outDirectory, 'replay-fold-stores');
}

/** A run replaces what an earlier run kept there: a store holds one run's session, never two mixed. */
export async function clearKeptStores(outDirectory: string): Promise<void> {
  // The CLI refuses an --out that is not a directory before the replay runs (OUTPUT.INVALID).
  await rm(keptStoresDirectory(outDirectory), { recursive: true, force: true }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
  });
}

/**
 * One `pi-fold view` page per kept fold arm store, written beside the report
 * (`<base>-<arm>-view.html`); returns the links the report shows, relative to it.
 */
export async function writeKeptStoreViews(
  outDirectory: string,
  baseName: string,
  priceList: string,
): Promise<ViewerLink[]> {
  const kept = keptStoresDirectory(outDirectory);
  const arms = await readdir(kept).catch(() => [] as string[]);
  const links: ViewerLink[] = [];
  for (const arm of arms.sort()) {
    const store = new FsFoldStore({ root: join(kept, arm) });
    try {
      for (const sessionId of (await store.listSessions()).slice(0, 1)) {
        const view = await readViewerSession(store, sessionId);
        const name = `${baseName}-${arm}-view.html`;
        // The replay's own prices, so the page's lead prices the session as the report does.
        const prices = PRICE_LISTS[priceList];
        const aboveTokens = prices?.longContext?.aboveTokens;
        await writeFile(
          join(outDirectory, name),
          renderViewerPage(view, {
            ...(aboveTokens === undefined ? {} : { priceLineTokens: aboveTokens }),
            ...(prices === undefined ? {} : { prices }),
          }),
        );
        links.push({ arm, href: name });
      }
    } finally {
      await store.dispose?.();
    }
  }
  return links;
}
