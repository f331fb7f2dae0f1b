import type { ToolDefinition } from '@mariozechner/pi-coding-agent';
import { Type } from 'typebox';
import type { AssignmentPlan, Question, StagePlan, WorkingSetCheck } from './stage-plan.ts';

export const STAGE_TOOL = 'repo_stage';
export const ANSWER_TOOL = 'submit_answers';

/** The words a stage payload uses; the agent policy parses them, so they live in one place. */
export const PAYLOAD = {
  marker: (stage: number, value: string) =>
    `Marker for stage ${stage}: ${value} (asked about later; it is in no file).`,
  markerPattern: (stage: number) => new RegExp(`Marker for stage ${stage}: ([a-z]+-\\d{4})`),
  readLine: 'Read with the read tool: ',
  probe: (question: Question) =>
    `Probe ${question.id}: what is the marker of stage ${question.stage}? Answer with ${ANSWER_TOOL}.`,
  probePattern: /Probe (\w+): what is the marker of stage (\d+)\?/g,
  check: (check: WorkingSetCheck) =>
    `Check ${check.id}: this stage's work needs line ${check.line} of ${check.path} (read at stage ${check.readAtStage}); quote it, trimmed, with ${ANSWER_TOOL}.`,
  checkPattern: /Check (\w+): this stage's work needs line (\d+) of (\S+) \(read at stage \d+\)/g,
  finalHeader: 'All stages are delivered. Final questions, withheld until now:',
  redelivered: '(re-delivered)',
};

/** What the agent submitted, outside the window (the answer key never enters it). */
export class AnswerSheet {
  readonly answers = new Map<string, string>();
  /** Stage payloads delivered again after their first delivery. */
  stageRereads = 0;
  readonly delivered = new Set<number>();
}

/** The stage payload: a real slice of the tree, one planted marker, and a probe when due. */
export function stagePayload(plan: AssignmentPlan, stage: StagePlan, redelivery: boolean): string {
  const [inline, ...toRead] = stage.files;
  const lines = [
    `Stage ${stage.stage} of ${plan.preset.stages} ${redelivery ? `${PAYLOAD.redelivered} ` : ''}· ${plan.tree.label} · ${stage.files.length} files`,
    'Files in this slice:',
    ...stage.files.map((file) => `  ${file.path} (${file.bytes} bytes)`),
    PAYLOAD.marker(stage.stage, stage.marker),
    `${PAYLOAD.readLine}${toRead.map((file) => file.path).join(', ')}`,
    'Note one finding per file after reading.',
  ];
  if (inline !== undefined) {
    lines.push(`Inline excerpt of ${inline.path}:`, plan.tree.read(inline.path).slice(0, plan.preset.inlineChars));
  }
  if (stage.probe !== undefined && !redelivery) lines.push(PAYLOAD.probe(stage.probe));
  if (!redelivery) lines.push(...stage.checks.map((check) => PAYLOAD.check(check)));
  return lines.join('\n');
}

/** The withheld block, delivered by the stage after the last. */
export function finalBlockPayload(plan: AssignmentPlan): string {
  return [
    PAYLOAD.finalHeader,
    ...plan.finalBlock.map((question) => PAYLOAD.probe(question)),
    'Answer every question, then finish.',
  ].join('\n');
}

/** `repo_stage {stage}`: stage 1..N delivers a slice (again on a later call), N+1 the final block. */
export function createStageTool(plan: AssignmentPlan, sheet: AnswerSheet): ToolDefinition {
  return {
    name: STAGE_TOOL,
    label: 'Repository stage',
    description: `Deliver one stage of the staged assignment over ${plan.tree.label}. Stages run 1..${plan.preset.stages}; stage ${plan.preset.stages + 1} delivers the final questions. Calling an earlier stage delivers it again.`,
    parameters: Type.Object({ stage: Type.Integer({ description: 'stage number' }) }),
    async execute(_id, params) {
      const { stage } = params as { stage: number };
      if (stage === plan.preset.stages + 1)
        return { content: [{ type: 'text', text: finalBlockPayload(plan) }], details: {} };
      const planned = plan.stages[stage - 1];
      if (planned === undefined)
        throw new Error(`${STAGE_TOOL}: stage ${stage} does not exist (1..${plan.preset.stages + 1})`);
      const redelivery = sheet.delivered.has(stage);
      if (redelivery) sheet.stageRereads += 1;
      sheet.delivered.add(stage);
      return { content: [{ type: 'text', text: stagePayload(plan, planned, redelivery) }], details: {} };
    },
  };
}

/** `submit_answers {answers}`: records answers; the first answer to a question counts. */
export function createAnswerTool(sheet: AnswerSheet): ToolDefinition {
  return {
    name: ANSWER_TOOL,
    label: 'Submit answers',
    description: 'Submit answers to probe or final questions, as {"answers": {"<question id>": "<value or unknown>"}}.',
    parameters: Type.Object({ answers: Type.Record(Type.String(), Type.String()) }),
    async execute(_id, params) {
      const { answers } = params as { answers: Record<string, string> };
      let recorded = 0;
      for (const [id, value] of Object.entries(answers)) {
        if (sheet.answers.has(id)) continue;
        sheet.answers.set(id, value);
        recorded += 1;
      }
      return { content: [{ type: 'text', text: `Recorded ${recorded} answer(s).` }], details: {} };
    },
  };
}
