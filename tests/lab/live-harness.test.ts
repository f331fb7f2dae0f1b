import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadToolDefinition } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { type ModelPolicy, runArm } from '../../lab/arms/run-arm.ts';
import { DEFAULT_CACHE_RULES } from '../../lab/provider/prefix-cache-simulator.ts';
import { LAB_TOKENIZER } from '../../lab/provider/wire-tokens.ts';
import type { LabRunSettings } from '../../lab/report/lab-records.ts';

function treeWithFiles(sizes: readonly number[]): string {
  const directory = mkdtempSync(join(tmpdir(), 'lab-harness-tree-'));
  sizes.forEach((size, index) => {
    writeFileSync(
      join(directory, `file${index}.txt`),
      Array.from({ length: Math.ceil(size / 12) }, (_, line) => `line ${index}.${line} ok`)
        .join('\n')
        .slice(0, size),
    );
  });
  return directory;
}

const settings = (cap: number): LabRunSettings => ({
  workload: 'harness',
  seed: 1,
  priceList: 'gpt-5.6-ledger',
  descriptorTokens: 200_000,
  providerCapTokens: cap,
  tokenizer: LAB_TOKENIZER,
  cacheRules: DEFAULT_CACHE_RULES,
});

/** Reads file0, file1, … one per request, then answers. */
const readAll =
  (files: number): ModelPolicy =>
  (request) => {
    const reads = request.messages.filter((message) => message.role === 'toolResult').length;
    return reads < files
      ? { text: `reading file${reads}`, toolCalls: [{ name: 'read', arguments: { path: `file${reads}.txt` } }] }
      : { text: 'done' };
  };

describe('lab harness: a real Pi AgentSession with the simulated provider', () => {
  it('bills every request, counts reads and sees pure appends as appends', async () => {
    const cwd = treeWithFiles([6000, 6000, 6000]);
    const result = await runArm({
      arm: 'unmanaged',
      settings: settings(372_000),
      tools: [createReadToolDefinition(cwd)],
      prompts: ['read the three files'],
      policy: readAll(3),
      cwd,
    });
    expect(result.failure).toBeUndefined();
    expect(result.rows.length).toBe(4);
    expect(result.fileReads).toBe(3);
    expect(result.fileBytes).toBeGreaterThan(15_000);
    expect(result.rows.every((row) => row.event === 'append')).toBe(true);
    for (let index = 1; index < result.rows.length; index += 1) {
      const row = result.rows[index]!;
      expect(row.promptTokens).toBeGreaterThan(result.rows[index - 1]!.promptTokens);
      // An append is served from cache up to a granularity step below the previous prompt (past the minimum).
      const previous = result.rows[index - 1]!.promptTokens;
      if (previous >= DEFAULT_CACHE_RULES.minimumTokens)
        expect(row.cacheRead).toBeGreaterThan(previous - DEFAULT_CACHE_RULES.granularity);
      expect(row.freshInput + row.cacheRead).toBe(row.promptTokens);
      expect(row.costUsd).toBeGreaterThan(0);
    }
  }, 60_000);

  it('refuses a prompt above the cap as an overflow, and the unmanaged arm ends there', async () => {
    const cwd = treeWithFiles([20_000, 20_000, 20_000]);
    const result = await runArm({
      arm: 'unmanaged',
      settings: settings(9_000),
      tools: [createReadToolDefinition(cwd)],
      prompts: ['read the three files'],
      policy: readAll(3),
      cwd,
    });
    const rejected = result.rows.filter((row) => row.rejected);
    expect(rejected.length).toBe(1);
    expect(rejected[0]!.promptTokens).toBeGreaterThan(9_000);
    expect(rejected[0]!.costUsd).toBe(0);
    expect(result.rows.at(-1)!.rejected).toBe(true);
    expect(result.failure).toMatch(/exceeds the context window/);
    for (const row of result.rows.filter((row) => !row.rejected)) expect(row.promptTokens).toBeLessThanOrEqual(9_000);
  }, 60_000);
});
