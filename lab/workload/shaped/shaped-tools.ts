import type { ToolDefinition } from '@mariozechner/pi-coding-agent';
import { Type } from 'typebox';
import { ANSWER_TOOL, type AnswerSheet, STAGE_TOOL } from '../stage-tools.ts';
import { ProjectState } from './project-state.ts';
import { type PlannedCall, runCall, type ShapedNeed, type ShapedPlan } from './shaped-plan.ts';

/** The words a shaped stage payload uses; the agent parses them, so they live in one place. */
export const SHAPED_PAYLOAD = {
  callLine: (call: Pick<PlannedCall, 'stage' | 'index' | 'tool' | 'arguments'>) =>
    `  ${call.stage}.${call.index} ${call.tool} ${JSON.stringify(call.arguments)}`,
  callPattern: /^ {2}(\d+)\.(\d+) (\w+) (\{.*\})$/gm,
  need: (need: ShapedNeed, call: PlannedCall) =>
    `${need.kind === 'check' ? 'Check' : need.kind === 'probe' ? 'Probe' : 'Question'} ${need.id}: quote line ${need.line} of the output of call ${need.source.stage}.${need.source.index} (${call.tool} ${describe(call)}) as it was then, trimmed, with ${ANSWER_TOOL}.`,
  needPattern: /(?:Check|Probe|Question) (\w+): quote line (\d+) of the output of call (\d+)\.(\d+) /g,
  finalHeader: 'All stages are delivered. Final questions, withheld until now:',
};

function describe(call: Pick<PlannedCall, 'tool' | 'arguments'>): string {
  const args = call.arguments;
  return String(args.command ?? args.path ?? args.pattern ?? '');
}

/** The stage payload: the calls to make, in order, and the needs this stage's work has. */
export function shapedStagePayload(plan: ShapedPlan, stage: number): string {
  const calls = plan.stages[stage - 1]!;
  const lines = [
    `Stage ${stage} of ${plan.preset.stages} · working copy of ${plan.tree.label} · ${calls.length} calls`,
    'Make these tool calls, in this order, then note what you found:',
    ...calls.map((call) => SHAPED_PAYLOAD.callLine(call)),
  ];
  for (const need of plan.needs) if (need.askedAt === stage) lines.push(SHAPED_PAYLOAD.need(need, callOf(plan, need)));
  return lines.join('\n');
}

function callOf(plan: ShapedPlan, need: ShapedNeed): PlannedCall {
  return plan.stages[need.source.stage - 1]![need.source.index - 1]!;
}

function finalPayload(plan: ShapedPlan): string {
  return [
    SHAPED_PAYLOAD.finalHeader,
    ...plan.needs
      .filter((need) => need.askedAt === plan.preset.stages + 1)
      .map((need) => SHAPED_PAYLOAD.need(need, callOf(plan, need))),
    'Answer every question, then finish.',
  ].join('\n');
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }], details: {} });

/**
 * One arm's tools over a fresh working copy: `bash`, `read`, `edit`, `grep` act on the
 * project state (lab/workload/shaped/project-state.ts), and `repo_stage` delivers a stage
 * and moves the clock to it. A stage delivered again moves nothing.
 */
export function createShapedTools(plan: ShapedPlan, sheet: AnswerSheet): ToolDefinition[] {
  const project = new ProjectState(plan.tree, plan.seed, plan.plannedEdits);
  const acting = (tool: PlannedCall['tool']) => (args: Record<string, unknown>) =>
    text(runCall(project, { tool, arguments: args as PlannedCall['arguments'] }));
  const stageTool: ToolDefinition = {
    name: STAGE_TOOL,
    label: 'Repository stage',
    description: `Deliver one stage of the assignment over a working copy of ${plan.tree.label}. Stages run 1..${plan.preset.stages}; stage ${plan.preset.stages + 1} delivers the final questions.`,
    parameters: Type.Object({ stage: Type.Integer({ description: 'stage number' }) }),
    async execute(_id, params) {
      const { stage } = params as { stage: number };
      if (stage === plan.preset.stages + 1) return text(finalPayload(plan));
      if (plan.stages[stage - 1] === undefined)
        throw new Error(`${STAGE_TOOL}: stage ${stage} does not exist (1..${plan.preset.stages + 1})`);
      if (sheet.delivered.has(stage)) sheet.stageRereads += 1;
      sheet.delivered.add(stage);
      project.stage = Math.max(project.stage, stage);
      return text(shapedStagePayload(plan, stage));
    },
  };
  const run = acting('bash');
  const read = acting('read');
  const edit = acting('edit');
  const grep = acting('grep');
  return [
    stageTool,
    {
      name: 'bash',
      label: 'bash',
      description: 'Run a shell command in the working copy and return its output.',
      parameters: Type.Object({ command: Type.String() }),
      execute: async (_id, params) => run(params as Record<string, unknown>),
    },
    {
      name: 'read',
      label: 'read',
      description: 'Read a file of the working copy.',
      parameters: Type.Object({ path: Type.String() }),
      execute: async (_id, params) => read(params as Record<string, unknown>),
    },
    {
      name: 'edit',
      label: 'edit',
      description: 'Insert one line of text after line `line` of a file.',
      parameters: Type.Object({ path: Type.String(), line: Type.Integer(), text: Type.String() }),
      execute: async (_id, params) => edit(params as Record<string, unknown>),
    },
    {
      name: 'grep',
      label: 'grep',
      description: 'Lines of the working copy that contain a literal pattern.',
      parameters: Type.Object({ pattern: Type.String() }),
      execute: async (_id, params) => grep(params as Record<string, unknown>),
    },
  ];
}
