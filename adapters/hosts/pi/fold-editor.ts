import type { ExtensionCommandContext, Theme } from '@mariozechner/pi-coding-agent';
import type { Component, TUI } from '@mariozechner/pi-tui';
import { FoldError } from '../../../core/fold-error.ts';
import type { FoldRuntime } from '../../../core/fold-runtime.ts';
import { actionForKey, buildEditorView, type EditorRow, type EditorView } from './fold-editor-model.ts';
import { hostScopeOf, loadTerminalText, type TerminalText } from './host-api.ts';

const HELP = '↑↓ move · enter peek · e expand · r refold · m mark span (twice) · u unmark · p pin/unpin · esc close';
const VISIBLE_ROWS = 18;

/**
 * `/fold-editor`: the interactive map. Every key runs the same validated action the agent's
 * tool runs (origin `user`), so the editor can do nothing the agent could not, and a refused
 * action shows its reason and changes nothing.
 */
export async function openFoldEditor(ctx: ExtensionCommandContext, runtime: FoldRuntime): Promise<void> {
  // The host's own pi-tui: key decoding depends on the terminal protocol state it holds.
  const terminal = await loadTerminalText(hostScopeOf(ctx));
  let shown = false;
  await ctx.ui.custom<void>((tui, theme, _keybindings, done) => {
    shown = true;
    return new FoldEditorComponent(tui, theme, runtime, done, terminal);
  });
  // A host with a UI but no terminal to draw in (Pi over RPC) returns without building the
  // editor; silence would look like a command that did nothing.
  if (!shown)
    ctx.ui.notify(
      "/fold-editor needs Pi's interactive terminal (this Pi has none to draw in, e.g. over RPC); /fold-status lists the same folds, marks and pins",
      'warning',
    );
}

export class FoldEditorComponent implements Component {
  private view: EditorView;
  private selected = 0;
  private message = '';
  private detail: string[] = [];
  private markStart: string | undefined;
  private busy = false;

  constructor(
    private readonly tui: Pick<TUI, 'requestRender'>,
    private readonly theme: Pick<Theme, 'fg' | 'bold'>,
    private readonly runtime: FoldRuntime,
    private readonly done: () => void,
    private readonly terminal: TerminalText,
  ) {
    this.view = buildEditorView(runtime.view);
  }

  handleInput(data: string): void {
    if (this.busy) return;
    const { matchesKey } = this.terminal;
    if (matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c') || data === 'q') return this.done();
    if (matchesKey(data, 'up')) this.selected = Math.max(0, this.selected - 1);
    else if (matchesKey(data, 'down')) this.selected = Math.min(this.view.rows.length - 1, this.selected + 1);
    else if (matchesKey(data, 'enter')) this.run('enter');
    else if (data === 'e') this.run('expand');
    else if (data === 'r') this.run('refold');
    else if (data === 'p') this.run('pin');
    else if (data === 'u') this.run('unmark');
    else if (data === 'm') this.mark();
    this.tui.requestRender();
  }

  private get row(): EditorRow | undefined {
    return this.view.rows[this.selected];
  }

  private run(key: Parameters<typeof actionForKey>[0]): void {
    const row = this.row;
    if (row === undefined) return;
    const action = actionForKey(key, row);
    if (action === undefined) {
      this.message = `that key does nothing on a ${row.kind} row`;
      return;
    }
    this.act(action);
  }

  private mark(): void {
    const row = this.row;
    if (row === undefined || row.kind === 'mark') {
      this.message = 'm works on entries and folds';
      return;
    }
    if (this.markStart === undefined) {
      this.markStart = row.id;
      this.message = `span starts at ${row.id}; press m on its last entry`;
      return;
    }
    const ids = this.markStart === row.id ? [row.id] : [this.markStart, row.id];
    this.markStart = undefined;
    this.act({ action: 'reboundary', ids });
  }

  private act(action: Record<string, unknown>): void {
    this.busy = true;
    this.runtime
      .act(action, { origin: 'user' })
      .then((answer) => {
        this.message = answer.text.split('\n')[0] ?? '';
        this.detail = answer.action === 'peek' ? answer.text.split('\n').slice(0, 12) : [];
      })
      .catch((error: unknown) => {
        this.message = `refused: ${FoldError.isInstance(error) ? error.message : String(error)}`;
        this.detail = [];
      })
      .finally(() => {
        this.busy = false;
        this.view = buildEditorView(this.runtime.view);
        this.selected = Math.min(this.selected, Math.max(0, this.view.rows.length - 1));
        this.tui.requestRender();
      });
  }

  render(width: number): string[] {
    const lines = [this.theme.bold(' pi-fold editor'), ...this.view.header.map((line) => ` ${line}`), ''];
    const first = Math.max(
      0,
      Math.min(this.selected - Math.floor(VISIBLE_ROWS / 2), this.view.rows.length - VISIBLE_ROWS),
    );
    const rows = this.view.rows.slice(first, first + VISIBLE_ROWS);
    if (rows.length === 0) lines.push(' (nothing yet: the window has no folds, marks or entries)');
    rows.forEach((row, offset) => {
      const chosen = first + offset === this.selected;
      const text = `${chosen ? '›' : ' '} ${row.label}`;
      lines.push(chosen ? this.theme.fg('accent', text) : text);
    });
    lines.push('');
    if (this.message.length > 0) lines.push(` ${this.message}`);
    for (const line of this.detail) lines.push(this.theme.fg('dim', `   ${line}`));
    lines.push(this.theme.fg('dim', ` ${HELP}`));
    return lines.map((line) => this.terminal.truncateToWidth(line, width));
  }

  invalidate(): void {
    this.view = buildEditorView(this.runtime.view);
  }
}
