import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** A `files` pattern of package.json as a test: `dir/` takes everything under it, `*` one path segment. */
function shippedBy(pattern: string): (path: string) => boolean {
  if (pattern.endsWith('/')) return (path) => path.startsWith(pattern);
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  const regex = new RegExp(`^${escaped}$`);
  return (path) => regex.test(path);
}

describe('the README the tarball ships', () => {
  it('links only to files that exist and that the tarball ships', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const { files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    const shipped = files.filter((pattern) => !pattern.startsWith('!')).map(shippedBy);
    const targets = new Set(
      [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((match) => match[1]!.split('#')[0]!)
        .filter((target) => target.length > 0 && !/^[a-z]+:/.test(target)),
    );
    expect(targets.size).toBeGreaterThan(5);
    const missing = [...targets].filter((target) => !existsSync(join(root, target)));
    const unshipped = [...targets].filter((target) => !shipped.some((test) => test(target)));
    expect(missing).toEqual([]);
    expect(unshipped).toEqual([]);
  });
});
