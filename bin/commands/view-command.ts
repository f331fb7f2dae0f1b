import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { renderViewerPage } from '../../application/viewer/render-viewer-page.ts';
import { describeViewCounts } from '../../application/viewer/view-counts.ts';
import { readViewerSession } from '../../application/viewer/viewer-session.ts';
import { DEFAULT_PRICE_LIST } from '../../core/pricing/price-lists.ts';
import { VIEW_HELP } from './command-help.ts';
import { optionText } from './command-options.ts';
import { type CliCommand, EXIT } from './command-table.ts';
import { openTargetOrExplain } from './open-store-target.ts';
import { assertWritableFile } from './output-paths.ts';
import { unansweredLine } from './store-deadline.ts';

/**
 * `pi-fold view <store>`: one HTML page per session, offline. The store is opened read-only
 * (not one byte of it changes); the only file written is the page.
 */
export const viewCommand: CliCommand = {
  ...VIEW_HELP,
  async run(parsed, output) {
    const [target, ...extra] = parsed.positional;
    if (target === undefined || extra.length > 0) {
      output.error(`pi-fold view: give exactly one store\nusage: ${this.usage}`);
      return EXIT.usage;
    }
    const text = (name: string) => optionText(parsed, name);
    const outOption = text('out');
    try {
      if (outOption !== undefined) assertWritableFile('--out', outOption);
    } catch (error) {
      output.error(`pi-fold view: ${(error as Error).message}`);
      return EXIT.usage;
    }
    const opened = await openTargetOrExplain('view', target, parsed.options, 'read-only', output);
    if ('exitCode' in opened) return opened.exitCode;
    try {
      const sessions = opened.store.listSessions === undefined ? [] : [...(await opened.store.listSessions())].sort();
      const sessionId = text('session') ?? (sessions.length === 1 ? sessions[0] : undefined);
      if (sessionId === undefined) {
        output.error(
          sessions.length === 0
            ? `pi-fold view: ${target} holds no session`
            : `pi-fold view: ${target} holds ${sessions.length} sessions; choose one with --session (${sessions.slice(0, 20).join(', ')}${sessions.length > 20 ? ', …' : ''})`,
        );
        return EXIT.usage;
      }
      const view = await readViewerSession(opened.store, sessionId);
      const page = renderViewerPage(view, {
        priceLineTokens: DEFAULT_PRICE_LIST.longContext?.aboveTokens,
        prices: DEFAULT_PRICE_LIST,
        writtenAt: new Date().toISOString(),
      });
      const out = resolve(outOption ?? `pi-fold-view-${sessionId}.html`);
      await writeFile(out, page, 'utf8');
      output.out(
        `pi-fold view: session ${sessionId}: ${describeViewCounts(view)} → ${out} (${Buffer.byteLength(page)} bytes)`,
      );
      return EXIT.ok;
    } catch (error) {
      const late = unansweredLine('view', target, error, 'no page written');
      output.error(late ?? `pi-fold view: ${(error as Error).message}`);
      return late === undefined ? EXIT.problemsFound : EXIT.noAnswer;
    } finally {
      await opened.store.dispose?.();
    }
  },
};
