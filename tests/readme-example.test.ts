import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

// The README's API example is the first thing a user copies: it must run as written.
it('the README engine example runs', async () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Using the engine'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(code).toBeDefined();
  const runnable = code!
    .replaceAll("'pi-fold/runtime'", `'${join(root, 'composition/index.ts')}'`)
    .replaceAll("'pi-fold'", `'${join(root, 'core/index.ts')}'`);
  expect(runnable).not.toMatch(/from 'pi-fold/);
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const file = join(root, '.tmp', 'readme-example.ts');
  writeFileSync(file, runnable);
  const logged: unknown[][] = [];
  const original = console.log;
  console.log = (...values: unknown[]) => logged.push(values);
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    console.log = original;
  }
  expect(logged[0]).toEqual([1, []]);
  expect(String(logged[1]?.[0])).toMatch(/^budget 20000 tokens · occupancy/);
});
