import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * Every command that opens a store has a deadline of its own against a server that accepts
 * the connection and never answers, and then exits: with exit code 4, a line that says the
 * store did not answer in time, and nothing left open that keeps the process alive. The
 * servers are real: a redis-server paused with SIGSTOP (what a stopped container or a
 * suspended laptop looks like from outside), and a TCP listener that never replies as a
 * PostgreSQL server.
 */
const CLI = fileURLToPath(new URL('../../bin/pi-fold.ts', import.meta.url));
/** Far past any deadline asked for here: a command still running then is hung, and is killed. */
const HUNG_AFTER_MS = 120_000;
const hasRedis = spawnSync('redis-server', ['--version']).status === 0;

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

function runCli(argv: readonly string[]): Promise<Ended> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CLI, ...argv], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const guard = setTimeout(() => child.kill('SIGKILL'), HUNG_AFTER_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stderr });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves once the server at `port` answers PING. */
async function untilRedisAnswers(port: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.on('error', () => resolve(false));
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
    });
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server on port ${port} never answered PING`);
}

const scratch = await scratchDirectory('cli-deadlines');
let redis: ChildProcess | undefined;
let redisPort = 0;
const silentSockets = new Set<Socket>();
const silentServer = createServer((socket) => {
  socket.resume();
  silentSockets.add(socket);
  socket.on('close', () => silentSockets.delete(socket));
});
let silentPort = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
  silentPort = (silentServer.address() as { port: number }).port;
  if (!hasRedis) return;
  redisPort = await freePort();
  redis = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(redisPort), '--save', '', '--appendonly', 'no', '--dir', scratch],
    { stdio: 'ignore' },
  );
  await untilRedisAnswers(redisPort);
  // Paused: the kernel still accepts connections on its port, and nothing ever answers them.
  redis.kill('SIGSTOP');
}, 30_000);

afterAll(async () => {
  if (redis !== undefined) {
    redis.kill('SIGCONT');
    redis.kill('SIGKILL');
  }
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silentServer.close(resolve));
  await removeScratch(scratch);
});

function expectEndedInTime(ended: Ended, command: string): void {
  expect(ended.signal, `${command} was still running after ${HUNG_AFTER_MS} ms and was killed`).toBeNull();
  expect(ended.stderr, command).toMatch(/did not answer in time/);
  expect(ended.stderr, command).toMatch(/--timeout/);
  expect(ended.code, `${command}: ${ended.stderr}`).toBe(4);
}

describe.skipIf(!hasRedis)('CLI commands against a paused Redis', () => {
  test('verify, gc, gc --dry-run, view and repair each stop at their deadline and exit 4', {
    timeout: HUNG_AFTER_MS + 30_000,
  }, async () => {
    const url = () => `redis://127.0.0.1:${redisPort}`;
    const commands = [
      ['verify', url(), '--timeout', '2'],
      ['gc', url(), '--timeout', '2'],
      ['gc', url(), '--dry-run', '--timeout', '2'],
      ['view', url(), '--timeout', '2', '--out', `${scratch}/page.html`],
      ['repair', url(), '--session', 'any', '--timeout', '2'],
      // The default deadline (15 s) ends a command too.
      ['verify', url()],
    ];
    const ended = await Promise.all(commands.map(runCli));
    for (const [index, result] of ended.entries()) expectEndedInTime(result, commands[index]!.join(' '));
  });
});

describe('CLI commands against a PostgreSQL port that never answers', () => {
  test('verify and gc stop at their deadline and exit 4', { timeout: HUNG_AFTER_MS + 30_000 }, async () => {
    const url = `postgres://pi:fold@127.0.0.1:${silentPort}/store`;
    const commands = [
      ['verify', url, '--timeout', '2'],
      ['gc', url, '--timeout', '2'],
    ];
    const ended = await Promise.all(commands.map(runCli));
    for (const [index, result] of ended.entries()) expectEndedInTime(result, commands[index]!.join(' '));
  });
});
