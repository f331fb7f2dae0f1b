import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The person's commands in a real Pi over RPC (`pi --mode rpc`, no terminal), on a new session
 * before its first request: each must answer in words a person can act on. `/fold-editor`
 * cannot draw there and says so; `/fold-view` writes the page of the empty session;
 * `/fold-status` says what is known instead of "unknown tokens".
 */
const checkout = resolve(import.meta.dirname, '../..');
const cli = process.env.PI_FOLD_PI_CLI ?? join(checkout, 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js');
const provider = join(checkout, 'tests/pi/support/scripted-provider-extension.ts');

interface RpcPi {
  /** Send a prompt and return the first notification that mentions `marker`. */
  command(message: string, marker: string): Promise<string>;
  close(): void;
}

function startRpcPi(): RpcPi {
  const agentDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-rpc-agent-'));
  const child = spawn(
    process.execPath,
    [
      cli,
      '--mode',
      'rpc',
      '--provider',
      'scripted',
      '--model',
      's1',
      '-e',
      provider,
      '-e',
      join(checkout, 'adapters/hosts/pi/index.ts'),
    ],
    {
      cwd: agentDirectory,
      env: {
        ...process.env,
        PI_CODING_AGENT_DIR: agentDirectory,
        PI_FOLD_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'pi-fold-rpc-config-')),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const notices: string[] = [];
  const waiting: { marker: string; resolve: (text: string) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    let event: { type?: string; method?: string; message?: string };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      return;
    }
    if (event.type !== 'extension_ui_request' || event.method !== 'notify' || typeof event.message !== 'string') return;
    notices.push(event.message);
    for (const waiter of waiting.splice(0))
      if (event.message.includes(waiter.marker)) waiter.resolve(event.message);
      else waiting.push(waiter);
  });
  let sent = 0;
  return {
    command(message, marker) {
      const answered = new Promise<string>((resolveAnswer, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no notice mentioning ${marker}; saw ${JSON.stringify(notices)}`)),
          60_000,
        );
        waiting.push({
          marker,
          resolve: (text) => {
            clearTimeout(timer);
            resolveAnswer(text);
          },
        });
      });
      sent += 1;
      child.stdin.write(`${JSON.stringify({ id: `c${sent}`, type: 'prompt', message })}\n`);
      return answered;
    },
    close: () => child.kill('SIGKILL'),
  };
}

describe('pi over RPC: the commands on a new session', () => {
  const pi = startRpcPi();
  afterAll(() => pi.close());

  it('/fold-editor says it needs the interactive terminal', async () => {
    const notice = await pi.command('/fold-editor', '/fold-editor');
    expect(notice).toContain("needs Pi's interactive terminal");
    expect(notice).toContain('/fold-status');
  }, 90_000);

  it('/fold-view writes the page of the empty session instead of STORE.NOT_FOUND', async () => {
    const notice = await pi.command('/fold-view', '/fold-view');
    expect(notice).not.toContain('STORE.NOT_FOUND');
    expect(notice).toMatch(/^\/fold-view: nothing folded yet .* → \S+\.html$/);
  }, 90_000);

  it('/fold-status gives the budget it knows, never "unknown tokens"', async () => {
    const notice = await pi.command('/fold-status', 'pending marks');
    expect(notice).not.toContain('unknown tokens');
    expect(notice).not.toContain('(≈0 tokens)');
    expect(notice).toMatch(/^budget (\d+ tokens|not known until the first request)/);
  }, 90_000);
});
