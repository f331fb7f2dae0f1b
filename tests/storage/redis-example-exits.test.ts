import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { REDIS_URL_VARIABLE, serverUrl } from './support/server-urls.ts';

/**
 * docs/storage.md's Redis example, run as written against the real server in a process of its
 * own: once it has disposed its runtime, nothing may keep the process alive (an open socket
 * would), so it must exit by itself. A process still running after the deadline is a failure.
 */
const root = resolve(import.meta.dirname, '../..');

function redisExample(url: string): string {
  const page = readFileSync(join(root, 'docs/storage.md'), 'utf8');
  const section = page.slice(page.indexOf('## Sharing one store across machines'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (code === undefined || !code.includes('new KeyvRedis(')) throw new Error('docs/storage.md has no Redis example');
  const runnable = code
    .replaceAll("'redis://folds.internal:6379'", JSON.stringify(url))
    .replaceAll("namespace: 'pi-fold'", `namespace: 'pi-fold-example-${process.pid}-${Date.now()}'`)
    .replaceAll("'pi-fold/runtime'", `'${join(root, 'composition/index.ts')}'`)
    .replaceAll("'pi-fold/storage-keyv'", `'${join(root, 'adapters/backends/storage-keyv/index.ts')}'`);
  expect(runnable).not.toMatch(/from 'pi-fold/);
  expect(runnable).not.toContain('folds.internal');
  return `${runnable}\nconsole.log('example done');\n`;
}

const redis = serverUrl(REDIS_URL_VARIABLE);
if (redis.url === undefined) {
  if (redis.required)
    test('redis server is available for the storage example', () => {
      throw new Error(redis.missingReason);
    });
  // Skipped, not absent: a file with no test at all fails the whole run outside CI.
  else test.skip('the Redis example in docs/storage.md lets its process exit (no Redis server)', () => {});
} else {
  const url = redis.url;
  test('the Redis example in docs/storage.md lets its process exit', () => {
    mkdirSync(join(root, '.tmp'), { recursive: true });
    const file = join(root, '.tmp', `storage-redis-example-${process.pid}.mts`);
    writeFileSync(file, redisExample(url));
    const result = spawnSync(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
      killSignal: 'SIGKILL',
    });
    expect(result.stdout, result.stderr).toContain('example done');
    expect(result.signal, 'the process was still running 30 s after the example finished').toBeNull();
    expect(result.status, result.stderr).toBe(0);
  }, 60_000);
}
