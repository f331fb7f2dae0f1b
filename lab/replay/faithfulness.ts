import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import type { ArmResult } from '../report/lab-records.ts';
import type { RecordedSession } from '../transcripts/recorded-session.ts';
import type { RecorderRewrite } from './recorded-cache-losses.ts';
import { firstRecordedCompaction } from './recorded-compaction.ts';

/** Beyond this share apart, native as replayed is not the bill the user paid, and the report says why. */
export const FAITHFUL_SHARE = 0.1;

/** What the comparison reads of a replay. */
export interface FaithfulnessInput {
  readonly recording: Pick<RecordedSession, 'responses' | 'compactions' | 'format'>;
  /** Responses replayed (the first this many of the recording). */
  readonly responseCount: number;
  readonly priceList: PriceList;
  readonly native: ArmResult | undefined;
  /** The recorder's own rewrites that read less than its previous prompt (`recorded-cache-losses.ts`): no arm makes them. */
  readonly recorderRewrites?: readonly RecorderRewrite[];
  /** Lines of the file that could not be read: what they held is missing from every arm. */
  readonly malformedLines?: number;
  /** The recorder's tokens per lab token the calibration fitted (`token-scale.ts`). */
  readonly tokenScale?: number;
}

/**
 * Tokenizers of today's models count the same text within about this factor of the lab's. A fit
 * beyond it stretches growth the replay does not have (lines it could not read) over every
 * token it does, so each append is billed too large.
 */
const PLAUSIBLE_TOKEN_SCALE = 1.4;

/** The recording's own bill for the responses replayed, priced with the replay's list. */
export function recordedDollars(input: Pick<FaithfulnessInput, 'recording' | 'responseCount' | 'priceList'>): number {
  let dollars = 0;
  for (const response of input.recording.responses.slice(0, input.responseCount)) {
    if (response.usage !== undefined) dollars += priceRequest(input.priceList, response.usage);
  }
  return dollars;
}

/**
 * Native as replayed beside the bill as recorded, and their ratio. A replay is only worth
 * trusting where its native arm reproduces what the user paid; where the two are more than
 * `FAITHFUL_SHARE` apart, the note names the differences the replay can see.
 */
export function describeFaithfulness(input: FaithfulnessInput): string[] {
  const { native, recording } = input;
  if (native === undefined) return [];
  const recorded = recordedDollars(input);
  if (recorded <= 0)
    return ['faithfulness: the recording has no usage, so native as replayed cannot be checked against a bill'];
  const nativeDollars = native.rows.reduce((sum, row) => sum + row.costUsd, 0);
  const ratio = nativeDollars / recorded;
  const head = `faithfulness: native as replayed $${nativeDollars.toFixed(2)} against $${recorded.toFixed(2)} as recorded (${ratio.toFixed(2)}×)`;
  if (Math.abs(ratio - 1) <= FAITHFUL_SHARE) return [`${head}: within ${FAITHFUL_SHARE * 100} %`];
  const reasons: string[] = [];
  if (native.compactions !== recording.compactions) {
    const host = recording.format === 'claude-code' ? "Claude Code's" : "the recorder's";
    reasons.push(
      `native compacted ${native.compactions}× where the recording compacted ${recording.compactions}× (${host} trigger and summary, which the replay's Pi does not reproduce, decide what every later request carries)`,
    );
  }
  const recordedAt = firstRecordedCompaction(recording, input.responseCount)?.beforeResponse;
  const nativeAt = firstNativeCompaction(native);
  if (recordedAt !== undefined && nativeAt !== recordedAt) {
    reasons.push(
      `the recording first compacted before request ${recordedAt + 1}, native ${nativeAt === undefined ? 'never' : `before request ${nativeAt + 1}`}: the requests between carry different histories`,
    );
  }
  if (native.failure !== undefined) reasons.push(`native stopped early (${native.failure})`);
  const changes = (input.recorderRewrites ?? []).filter(
    (rewrite) => rewrite.kind === 'prompt change' && rewrite.response < input.responseCount,
  );
  if (changes.length > 0) {
    const moved = changes.reduce((sum, change) => sum + change.movedTokens, 0);
    const rates = input.priceList.base;
    const writes = rates.cacheWrite !== rates.input ? rates.cacheWrite : rates.input;
    const dollars = (moved * (writes - rates.cacheRead)) / 1_000_000;
    reasons.push(
      `${changes.length} prompt change(s) of the recorder's own (its prompt shrank and read only part of its cache) moved ${moved.toLocaleString('en-US')} tokens to fresh input, about $${dollars.toFixed(2)}, which no arm's host makes`,
    );
  }
  const scale = input.tokenScale ?? 1;
  if ((input.malformedLines ?? 0) > 0 || scale > PLAUSIBLE_TOKEN_SCALE)
    reasons.push(
      `${input.malformedLines ?? 0} line(s) of the file could not be read, so what they held is missing from every arm${scale > PLAUSIBLE_TOKEN_SCALE ? `, and the tokenizer fit (${scale}×, beyond the ${PLAUSIBLE_TOKEN_SCALE}× tokenizers differ by) stretches the missing growth over every appended token` : ''}`,
    );
  const output = outputShortfall(input, native, recorded, nativeDollars);
  if (output !== undefined) reasons.push(output);
  if (reasons.length === 0) reasons.push('no difference the replay can see explains it');
  return [
    `${head}: more than ${FAITHFUL_SHARE * 100} % apart; what the replay cannot reproduce: ${reasons.join('; ')}; ${tokenSplit(input, native)}`,
  ];
}

/**
 * A recording whose output counts are under half of what its own responses' text and tool calls
 * count (as replayed) did not write what its provider billed: Claude Code can keep the count it
 * had when a response began. Its bill is then short by the output, and the prompt side, which
 * the replay reproduces, is compared without output on either side.
 */
function outputShortfall(
  input: FaithfulnessInput,
  native: ArmResult,
  recordedDollars: number,
  nativeDollars: number,
): string | undefined {
  let recordedOutput = 0;
  let responses = 0;
  for (const response of input.recording.responses.slice(0, input.responseCount)) {
    if (response.usage === undefined) continue;
    recordedOutput += response.usage.output;
    responses += 1;
  }
  const agentRows = native.rows.filter((row) => !row.rejected && row.purpose !== 'summary');
  const replayedOutput = agentRows.reduce((sum, row) => sum + row.output, 0);
  if (recordedOutput * 2 >= replayedOutput) return undefined;
  const outputDollars = (tokens: number): number =>
    priceRequest(input.priceList, { input: 0, cacheRead: 0, cacheWrite: 0, output: tokens });
  const nativeOutputDollars = native.rows
    .filter((row) => !row.rejected)
    .reduce((sum, row) => sum + outputDollars(row.output), 0);
  const recordedPrompt = recordedDollars - outputDollars(recordedOutput);
  const nativePrompt = nativeDollars - nativeOutputDollars;
  return `the recording's output counts (${recordedOutput.toLocaleString('en-US')} tokens for ${responses} responses) are under half of what its responses' own text and tool calls count as replayed (${replayedOutput.toLocaleString('en-US')}): its host did not write what was billed; without output on either side, native $${nativePrompt.toFixed(2)} against $${recordedPrompt.toFixed(2)} (${(nativePrompt / recordedPrompt).toFixed(2)}×)`;
}

/** Where native's tokens differ from the recording's: fresh input and cache reads, replayed against recorded. */
function tokenSplit(input: FaithfulnessInput, native: ArmResult): string {
  let recordedFresh = 0;
  let recordedRead = 0;
  for (const response of input.recording.responses.slice(0, input.responseCount)) {
    if (response.usage === undefined) continue;
    recordedFresh += response.usage.input + response.usage.cacheWrite;
    recordedRead += response.usage.cacheRead;
  }
  const replayed = native.rows.filter((row) => !row.rejected);
  const fresh = replayed.reduce((sum, row) => sum + row.freshInput, 0);
  const read = replayed.reduce((sum, row) => sum + row.cacheRead, 0);
  const share = (value: number, against: number): string =>
    against === 0 ? 'n/a' : `${value >= against ? '+' : ''}${Math.round((100 * (value - against)) / against)} %`;
  return `native's fresh input ${fresh.toLocaleString('en-US')} against ${recordedFresh.toLocaleString('en-US')} recorded (${share(fresh, recordedFresh)}), cache reads ${read.toLocaleString('en-US')} against ${recordedRead.toLocaleString('en-US')} (${share(read, recordedRead)})`;
}

/** The agent request native's first summary call came before. */
function firstNativeCompaction(native: ArmResult): number | undefined {
  let agentRequests = 0;
  for (const row of native.rows) {
    if (row.purpose === 'summary') return agentRequests;
    if (!row.rejected) agentRequests += 1;
  }
  return undefined;
}
