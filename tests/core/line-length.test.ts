import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { longLines } from './support/long-lines.ts';

const root = resolve(import.meta.dirname, '../..');

describe('line length', () => {
  it('no line of product code is wider than 120 characters outside its string literals', () => {
    expect(longLines(root)).toEqual([]);
  });

  it('flags long comments and code, and leaves long messages, templates and URLs whole', () => {
    const tree = mkdtempSync(join(tmpdir(), 'pi-fold-lines-'));
    mkdirSync(join(tree, 'core'));
    const words = 'word '.repeat(30);
    writeFileSync(
      join(tree, 'core', 'sample.ts'),
      [
        `/** ${words} */`,
        `const message = '${words}';`,
        `const template = \`${words} \${message} ${words}\`;`,
        `// see https://example.com/${'a'.repeat(130)}`,
        `export const sum = [${Array.from({ length: 40 }, (_, index) => index).join(', ')}];`,
        `    // ${words}`,
        'const short = 1;',
      ].join('\n'),
    );
    expect(longLines(tree, ['core'])).toEqual(['core/sample.ts:1', 'core/sample.ts:5', 'core/sample.ts:6']);
  });
});
