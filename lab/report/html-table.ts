import { escapeHtml } from '../../application/html-escape.ts';

/** A plain HTML table: one header row, then the rows, every cell escaped. */
export function htmlTable(className: string, head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (row: readonly string[], tag: 'th' | 'td'): string =>
    `<tr>${row.map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join('')}</tr>`;
  return `<table class="${className}">${line(head, 'th')}${rows.map((row) => line(row, 'td')).join('')}</table>`;
}
