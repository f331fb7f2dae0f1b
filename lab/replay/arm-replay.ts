import type { ArmResult } from '../report/lab-records.ts';
import type { NeedsTally } from './needs/needs-tally.ts';
import type { ReplayGap } from './replay-plan.ts';

/** One arm's replay: its result, the gaps it met, and how long it took. */
export interface ArmReplay {
  readonly result: ArmResult;
  readonly gaps: readonly ReplayGap[];
  /** Agent requests the provider answered: equals the recorded responses when the arm added or lost none. */
  readonly answeredAgentRequests: number;
  readonly wallMs: number;
  /** Each need of the recording as this arm's windows held it (`needs/`). */
  readonly needs: NeedsTally;
}
