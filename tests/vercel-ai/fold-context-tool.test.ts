import { generateText, type ModelMessage, stepCountIs, type ToolResultPart } from 'ai';
import { describe, expect, it } from 'vitest';
import { canonicalBytes } from '../../adapters/hosts/vercel-ai/canonical-message.ts';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';
import type { ModelPrompt, PromptRecord } from '../../adapters/hosts/vercel-ai/usage-middleware.ts';
import { ACTION_NAMES } from '../../core/actions/action-arguments.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import { fileText, readFileTool, ScriptedModel, type ScriptedStep } from '../../testing/vercel-ai/scripted-model.ts';
import { appendOnlyViolations, pairingViolations } from './support/prompt-checks.ts';

const BUDGET = 40_000;
const LAST_CALL = 60;
const BRIEF = 'Modules 0-9: parsers only; the retry bug is in module 7.';
const UNKNOWN_FOLD = 'fold_000000000000000000000000';

/** Fold ids of tool folds whose placeholder the prompt shows. */
function toolFoldIds(prompt: ModelPrompt): string[] {
  return [...serialized(prompt).matchAll(/\[folded tool (fold_[0-9a-f]{24})/g)].map((match) => match[1]!);
}

function serialized(prompt: ModelPrompt): string {
  return prompt.map((message) => canonicalBytes(message)).join('\n');
}

/** The tool-result part answering `toolCallId` in a prompt. */
function resultFor(prompt: ModelPrompt, toolCallId: string) {
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result' && part.toolCallId === toolCallId) return part;
  }
  return undefined;
}

function textOf(part: { output: { type: string; value?: unknown } } | undefined): string {
  return String(part?.output.value);
}

describe('the fold_context tool driven by the model through generateText', () => {
  it('answers peek, expand, brief, pin, unmark and status exactly, and refuses bad calls clearly without stopping the loop', async () => {
    const prompts: PromptRecord[] = [];
    const histories: ModelMessage[][] = [];
    const folding = await createFolding({
      store: 'memory',
      sessionId: 'tool-actions',
      settings: { providerInputBudget: BUDGET },
      onPrompt: (record) => prompts.push(record),
    });
    let withdrawnSpan: [string, string] = ['', ''];
    let standingAtUnmark = new Set<string>();
    const chosen: { fold?: string; standing?: string; mark?: string; withdrawn?: string; pinnedEntry?: string } = {};
    const fold = (input: Record<string, unknown>): ScriptedStep => ({
      toolCalls: [{ toolName: 'fold_context', input }],
    });
    const read = (call: number): ScriptedStep => ({
      toolCalls: [{ toolName: 'read_file', input: { path: `src/module_${call}.ts` } }],
    });
    const model = new ScriptedModel(({ call, prompt }) => {
      switch (call) {
        case 11:
          return fold({ action: 'status' });
        case 12:
          chosen.fold = toolFoldIds(prompt)[0];
          return fold({ action: 'peek', id: chosen.fold, bytes: 200_000 });
        case 14:
          return fold({ action: 'expand', id: chosen.fold });
        case 15:
          return fold({ action: 'expand', id: chosen.fold });
        case 16:
          return fold({ action: 'expand', id: UNKNOWN_FOLD });
        case 17:
          return fold({ action: 'peek', id: chosen.fold, bytes: 5 });
        case 18:
          return fold({ action: 'explode' });
        case 19:
          // The mock model reads ids off the runtime, as a real one would from status.
          chosen.mark = folding.runtime.view.memory.marks[0]!.id;
          return fold({ action: 'brief', id: chosen.mark, text: BRIEF });
        case 21: {
          chosen.standing = toolFoldIds(prompt).find((id) => id !== chosen.fold);
          return fold({ action: 'brief', id: chosen.standing, text: BRIEF });
        }
        case 22: {
          const entries = folding.entries(histories[histories.length - 1]!);
          chosen.pinnedEntry = entries.find((entry) => entry.toolCallId === 'call_20_0')!.id;
          return fold({ action: 'pin', ids: [chosen.pinnedEntry] });
        }
        case 23:
          return fold({ action: 'pin', ids: [] });
        case 24: {
          // A mark no other pending mark encloses: withdrawing it must leave its span raw.
          const { index, memory } = folding.runtime.view;
          const span = (candidate: { firstEntryId: string; lastEntryId: string }) =>
            [index.positionOf(candidate.firstEntryId)!, index.positionOf(candidate.lastEntryId)!] as const;
          const mark = memory.marks.find((candidate) => {
            const [first, last] = span(candidate);
            return (
              candidate.id !== chosen.mark &&
              !memory.marks.some((other) => other !== candidate && span(other)[0] <= first && last <= span(other)[1])
            );
          })!;
          chosen.withdrawn = mark.id;
          withdrawnSpan = [mark.firstEntryId, mark.lastEntryId];
          standingAtUnmark = new Set([...folding.runtime.view.lattice.allRecords()].map((record) => record.id));
          return fold({ action: 'unmark', id: chosen.withdrawn });
        }
        case 25:
          return fold({ action: 'unmark', id: chosen.withdrawn });
        case LAST_CALL:
          return { text: 'done' };
        default:
          return read(call);
      }
    });
    const result = await generateText({
      model: folding.wrapModel(model.model),
      tools: { read_file: readFileTool, ...folding.tools },
      prompt: 'Audit the repository.',
      prepareStep: folding.composePrepareStep(({ messages }) => {
        histories.push(messages);
        return undefined;
      }),
      stopWhen: stepCountIs(LAST_CALL + 5),
    });
    expect(result.steps).toHaveLength(LAST_CALL + 1);
    const promptAt = (call: number) => model.calls[call]!.prompt;
    const rows = folding.runtime.view.ledger;
    expect(appendOnlyViolations(prompts, rows)).toEqual([]);
    for (const record of prompts) expect(pairingViolations(record.prompt)).toEqual([]);

    // status: the folds it lists are exactly the folds the window showed.
    const status = textOf(resultFor(promptAt(12), 'call_11_0'));
    expect(status).toContain(`budget ${BUDGET} tokens`);
    const shown = [...serialized(promptAt(11)).matchAll(/\[folded \w+ (fold_[0-9a-f]{24})/g)].map((match) => match[1]);
    const listed = [
      ...status
        .split('visible folds')[1]!
        .split('\npins')[0]!
        .matchAll(/- (fold_[0-9a-f]{24})/g),
    ].map((match) => match[1]);
    expect(shown.length).toBeGreaterThan(0);
    expect(listed.sort()).toEqual([...new Set(shown)].sort());

    // peek: the exact stored bytes of the folded result, verified, parse back to the original part.
    const foldId = chosen.fold!;
    expect(foldId).toBeDefined();
    const record = folding.runtime.view.lattice.record(foldId)!;
    const peek = textOf(resultFor(promptAt(13), 'call_12_0'));
    const entries = folding.entries(histories[13]!);
    const foldedEntries = entries.filter((entry) =>
      record.parts.some((part) => part.kind === 'entry' && part.entryId === entry.id),
    );
    expect(foldedEntries.length).toBeGreaterThan(0);
    for (const entry of foldedEntries) {
      // The header line names the entry and its verified digest; the exact stored bytes follow it.
      expect(peek).toMatch(
        new RegExp(`--- entry ${entry.id} \\S sha256 ${sha256Hex(entry.bytes).slice(0, 16)} verified\n`),
      );
      expect(peek).toContain(`${sha256Hex(entry.bytes).slice(0, 16)} verified\n${entry.bytes}`);
      const part = (JSON.parse(entry.bytes) as { content: ToolResultPart[] }).content[0]!;
      expect(textOf(part)).toBe(
        fileText(
          (
            histories[13]!
              .flatMap((message) =>
                message.role === 'assistant' && Array.isArray(message.content) ? message.content : [],
              )
              .find((candidate) => candidate.type === 'tool-call' && candidate.toolCallId === part.toolCallId) as {
              input: { path: string };
            }
          ).input.path,
        ),
      );
    }
    // The peek is ephemeral: once the model replied, its result shrank to a stub, as a recorded give-back.
    expect(textOf(resultFor(promptAt(14), 'call_12_0'))).toMatch(new RegExp(`^\\[peek of ${foldId} returned`));
    expect(rows[14]!.causes).toContain('give-back');

    // expand: the original results are back in place, byte for byte, as a recorded rewrite.
    expect(textOf(resultFor(promptAt(15), 'call_14_0'))).toContain(`expanded ${foldId}`);
    expect(rows[15]!.causes).toContain('expand');
    for (const entry of foldedEntries) {
      const original = (JSON.parse(entry.bytes) as { content: ToolResultPart[] }).content[0]!;
      expect(resultFor(promptAt(15), original.toolCallId)?.output).toEqual(original.output);
    }

    // Refusals come back as error results naming the problem; the loop went on.
    const errorAt = (call: number) => resultFor(promptAt(call + 1), `call_${call}_0`)!.output;
    expect(errorAt(15)).toEqual({
      type: 'error-text',
      value: `ACTION.ALREADY_EXPANDED: expand: ${foldId} is already expanded`,
    });
    expect(errorAt(16)).toEqual({
      type: 'error-text',
      value: `ACTION.UNKNOWN_ID: expand: "${UNKNOWN_FOLD}" is not a fold, mark or entry of this session`,
    });
    expect(errorAt(17)).toEqual({
      type: 'error-text',
      value: 'ACTION.INVALID_ARGUMENT: peek.bytes must be an integer from 1024 to 200000, got 5',
    });
    expect(errorAt(18)).toEqual({
      type: 'error-text',
      value: `ACTION.UNKNOWN: action must be one of ${ACTION_NAMES.join(', ')}; got "explode"`,
    });
    expect(errorAt(21).type).toBe('error-text');
    expect(textOf({ output: errorAt(21) })).toMatch(
      new RegExp(`^ACTION.NOT_PENDING: brief: ${chosen.standing} is a standing fold`),
    );
    expect(errorAt(23)).toEqual({
      type: 'error-text',
      value: 'ACTION.INVALID_ARGUMENT: pin.ids must hold 1 to 64 ids, got 0',
    });
    expect(textOf({ output: errorAt(25) })).toMatch(/^ACTION.UNKNOWN_ID: unmark: /);

    // brief: the agent's words reach the window when that fold commits.
    expect(textOf(resultFor(promptAt(20), 'call_19_0'))).toMatch(new RegExp(`^brief kept for ${chosen.mark}`));
    expect(folding.runtime.view.lattice.record(chosen.mark!)?.brief).toBe(BRIEF);
    expect(prompts.some((entry) => serialized(entry.prompt).includes(BRIEF.slice(0, 30)))).toBe(true);

    // pin: the pinned result stays raw through every later commit, while its neighbours fold.
    expect(textOf(resultFor(promptAt(23), 'call_22_0'))).toMatch(/^pinned 1 entry/);
    const finalPrompt = promptAt(LAST_CALL);
    expect(textOf(resultFor(finalPrompt, 'call_20_0'))).toBe(fileText('src/module_20.ts'));
    expect(textOf(resultFor(finalPrompt, 'call_26_0'))).not.toBe(fileText('src/module_26.ts'));

    // unmark: the withdrawn span never folds.
    expect(textOf(resultFor(promptAt(25), 'call_24_0'))).toMatch(new RegExp(`^withdrew ${chosen.withdrawn}`));
    expect(folding.runtime.view.lattice.record(chosen.withdrawn!)).toBeUndefined();
    // Nothing new folded over the whole withdrawn span after the unmark (marks cut inside it
    // before the unmark are their own decisions and may still land).
    const { index, lattice } = folding.runtime.view;
    const first = index.positionOf(withdrawnSpan[0])!;
    const last = index.positionOf(withdrawnSpan[1])!;
    const landedOver = [...lattice.allRecords()].filter((record) => {
      const placed = lattice.placement(record.id)!;
      return placed.first <= first && last <= placed.last && !standingAtUnmark.has(record.id);
    });
    expect(landedOver.map((record) => record.id)).toEqual([]);
    expect(prompts.length).toBe(LAST_CALL + 1);
    await folding.dispose();
  }, 60_000);
});
