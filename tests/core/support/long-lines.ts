import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './source-files.ts';

/** The widest line the formatter writes; comments and code past it are hard to read side by side. */
export const MAX_LINE = 120;

/** Shipped product code, whose lines the check holds to MAX_LINE. */
export const PRODUCT_CODE = ['core', 'ports', 'adapters', 'composition', 'application', 'bin'];

const LITERAL_KINDS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateExpression,
  ts.SyntaxKind.RegularExpressionLiteral,
]);

/** Where each string, template or regex literal of a file starts and ends. */
function literalSpans(path: string, text: string): (readonly [number, number])[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const spans: (readonly [number, number])[] = [];
  const visit = (node: ts.Node): void => {
    if (LITERAL_KINDS.has(node.kind)) spans.push([node.getStart(file), node.getEnd()]);
    else ts.forEachChild(node, visit);
  };
  visit(file);
  return spans;
}

/**
 * Every line of the given rooms under `root` still wider than MAX_LINE once the characters of
 * its string literals are left out, as `<file>:<line>`. Literals are left out because breaking a
 * message mid-sentence only hides it from a search; a line naming a URL is left whole.
 */
export function longLines(root: string, rooms: readonly string[] = PRODUCT_CODE): string[] {
  const found: string[] = [];
  for (const room of rooms) {
    for (const path of sourceFiles(join(root, room), /\.(ts|mts|mjs)$/).sort()) {
      const text = readFileSync(path, 'utf8');
      const spans = literalSpans(path, text);
      let offset = 0;
      text.split('\n').forEach((line, index) => {
        if (line.length > MAX_LINE && !/https?:\/\//.test(line)) {
          const end = offset + line.length;
          const inLiterals = spans.reduce(
            (sum, [from, to]) => sum + Math.max(0, Math.min(to, end) - Math.max(from, offset)),
            0,
          );
          if (line.length - inLiterals > MAX_LINE)
            found.push(`${relative(root, path).split(sep).join('/')}:${index + 1}`);
        }
        offset += line.length + 1;
      });
    }
  }
  return found;
}
