import { expect, test } from 'vitest';
import { COMMANDS } from '../../bin/cli.ts';
import { runCliCaptured } from './support/cli-capture.ts';

test('the CLI lists its command table, refuses unknown commands and bad usage with exit 2', async () => {
  const help = await runCliCaptured(['help']);
  expect(help.exitCode).toBe(0);
  for (const command of COMMANDS) expect(help.out).toContain(command.usage);
  const unknown = await runCliCaptured(['frobnicate']);
  expect(unknown.exitCode).toBe(2);
  expect(unknown.error).toContain('unknown command "frobnicate"');
  expect((await runCliCaptured(['verify'])).exitCode).toBe(2);
  expect((await runCliCaptured(['verify', 'a', 'b'])).exitCode).toBe(2);
  expect((await runCliCaptured(['verify', '/tmp', '--namespace'])).exitCode).toBe(2);
  const unrelatedDirectory = await runCliCaptured(['verify', import.meta.dirname]);
  expect(unrelatedDirectory.exitCode).toBe(2);
  expect(unrelatedDirectory.error).toContain('holds no pi-fold store');
  const notAStore = await runCliCaptured(['verify', '/etc/hostname']);
  expect(notAStore.exitCode).toBe(2);
  expect(notAStore.error).toContain('neither a store directory');
});
