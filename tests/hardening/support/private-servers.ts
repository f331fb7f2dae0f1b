import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Throwaway Redis and PostgreSQL servers this test process owns, so a test can stop one
 * mid-session and start it again (a shared CI server must never be stopped). Redis keeps an
 * append-only file synced on every write, so what it acknowledged survives the restart.
 */
export interface PrivateServer {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stop for good and leave nothing running. */
  dispose(): Promise<void>;
}

/** Why a private server cannot start here, or undefined when the binaries exist. */
export function missingServerBinaries(): string | undefined {
  if (!existsSync('/usr/bin/redis-server') && !existsSync('/usr/local/bin/redis-server'))
    return 'redis-server is not installed (apt-get install -y redis-server)';
  if (postgresBin() === undefined) return 'postgresql is not installed (apt-get install -y postgresql)';
  return undefined;
}

function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).sort((a, b) => Number(a) - Number(b));
  const bin = versions.length === 0 ? undefined : join(base, versions.at(-1)!, 'bin');
  return bin !== undefined && existsSync(join(bin, 'initdb')) ? bin : undefined;
}

/** A free loopback port, chosen by the kernel. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

async function waitForPort(port: number, up: boolean): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open === up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`port ${port} did not come ${up ? 'up' : 'down'}`);
}

/** A private redis-server; `extraArguments` are passed on (e.g. `--maxmemory-policy allkeys-lru`). */
export async function startPrivateRedis(
  directory: string,
  extraArguments: readonly string[] = [],
): Promise<PrivateServer> {
  await mkdir(directory, { recursive: true });
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--dir',
        directory,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        ...extraArguments,
      ],
      { stdio: 'ignore' },
    );
    await waitForPort(port, true);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
    await waitForPort(port, false);
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop, dispose: stop };
}

export async function startPrivatePostgres(directory: string): Promise<PrivateServer> {
  const bin = postgresBin();
  if (bin === undefined) throw new Error('postgresql is not installed');
  const root = process.getuid?.() === 0;
  // PostgreSQL refuses to run as root: its cluster belongs to the postgres user.
  const asPostgres = (command: string, args: string[]) =>
    root ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
  await mkdir(directory, { recursive: true });
  if (root) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(directory, Number(stdout.trim()), Number(group.trim()));
  }
  await chmod(directory, 0o700);
  const data = join(directory, 'data');
  await asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const port = await freePort();
  const start = async () => {
    await asPostgres(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(directory, 'server.log'),
      '-w',
      '-o',
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${directory} -c fsync=off`,
      'start',
    ]);
    await waitForPort(port, true);
  };
  // Immediate mode: the server dies the way a crashed or killed server does.
  const stop = async () => {
    await asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    await waitForPort(port, false);
  };
  await start();
  return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, start, stop, dispose: stop };
}
