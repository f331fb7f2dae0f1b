import { DEFAULT_REPLAY_ARMS } from '../../lab/arms/arm-profile.ts';
import { PI_LINES, REPLAY_TOKENIZER, replayInstallLines } from '../../lab/peers/pi-host-lines.ts';
import type { CommandOption } from './command-options.ts';

/**
 * What `pi-fold --help` and `pi-fold <command> --help` say about one command, kept apart from
 * the command's code so the help (and a command that is not chosen) never loads what that
 * command imports: `replay` pulls in Pi and the tokenizer, which `verify` and `gc` must run
 * without, and `replay --help` must answer with neither installed.
 */
export interface CommandHelp {
  readonly name: string;
  /** One line for `pi-fold --help`. */
  readonly summary: string;
  readonly usage: string;
  /** Every option the command takes; anything else is refused by name. */
  readonly options: readonly CommandOption[];
  /** Command lines shown under "examples" in the command's help. */
  readonly examples: readonly string[];
  /** Optional packages the command loads, told in its help and in the error when one is missing. */
  readonly needs: readonly string[];
  /** The install commands for `needs`, one per way to satisfy them. */
  readonly installLines: readonly string[];
}

const STORE = '<store-dir | file.sqlite | redis://… | postgres://…>';

const NAMESPACE: CommandOption = {
  name: 'namespace',
  value: 'name',
  description: 'Keyv namespace of the store (default pi-fold)',
};
const TABLE: CommandOption = {
  name: 'table',
  value: 'name',
  description: 'SQL table of a SQLite or PostgreSQL store (default keyv)',
};
const TIMEOUT: CommandOption = {
  name: 'timeout',
  value: 'seconds',
  description: 'longest wait for any one answer from the store; past it the command stops and exits 4 (default 15)',
};
const JSON_REPORT: CommandOption = { name: 'json', description: 'print the whole report as JSON' };
const DRY_RUN: CommandOption = { name: 'dry-run', description: 'report what would change and write nothing' };

export const VERIFY_HELP: CommandHelp = {
  name: 'verify',
  summary: 'Re-hash every blob and record of a store and report each problem by key',
  usage: `pi-fold verify ${STORE} [--namespace pi-fold] [--table keyv] [--timeout 15] [--json]`,
  options: [NAMESPACE, TABLE, TIMEOUT, JSON_REPORT],
  examples: [
    'pi-fold verify ~/.local/share/pi-fold',
    'pi-fold verify redis://folds.internal:6379 --namespace pi-fold --json',
  ],
  needs: [],
  installLines: [],
};

export const VIEW_HELP: CommandHelp = {
  name: 'view',
  summary:
    'Write one self-contained HTML page of a session: prompt sizes, commits, the fold forest, exact sources, search (reads the store only)',
  usage: `pi-fold view ${STORE} [--session id] [--out file.html] [--namespace pi-fold] [--table keyv] [--timeout 15]`,
  options: [
    { name: 'session', value: 'id', description: 'the session to show (needed when the store holds more than one)' },
    { name: 'out', value: 'file.html', description: 'where to write the page (default pi-fold-view-<session>.html)' },
    NAMESPACE,
    TABLE,
    TIMEOUT,
  ],
  examples: ['pi-fold view ~/.pi/agent/sessions/<project>/pi-fold --session <id> --out session.html'],
  needs: [],
  installLines: [],
};

export const GC_HELP: CommandHelp = {
  name: 'gc',
  summary: 'Delete blobs no fold or session references (--dry-run reports what it would free)',
  usage: `pi-fold gc ${STORE} [--dry-run] [--grace-minutes 60] [--namespace pi-fold] [--table keyv] [--timeout 15] [--json]`,
  options: [
    DRY_RUN,
    {
      name: 'grace-minutes',
      value: 'minutes',
      description: 'keep unreferenced blobs written this recently, for writers still committing (default 60)',
    },
    NAMESPACE,
    TABLE,
    TIMEOUT,
    JSON_REPORT,
  ],
  examples: [
    'pi-fold gc ~/.local/share/pi-fold --dry-run',
    'pi-fold gc /var/lib/pi-fold/folds.sqlite --grace-minutes 240',
  ],
  needs: [],
  installLines: [],
};

export const REPAIR_HELP: CommandHelp = {
  name: 'repair',
  summary:
    'Mend what verify names: rebuild a session whose state cannot be read, set damaged records, blobs and log lines aside',
  usage: `pi-fold repair ${STORE} (--session <id> | --all) [--dry-run] [--namespace pi-fold] [--table keyv] [--timeout 15] [--json]`,
  options: [
    { name: 'session', value: 'id', description: 'the session to repair (must be in the store)' },
    { name: 'all', description: 'every session of the store, then damaged blobs no session names' },
    DRY_RUN,
    NAMESPACE,
    TABLE,
    TIMEOUT,
    JSON_REPORT,
  ],
  examples: [
    'pi-fold repair ~/.pi/agent/sessions/<project>/pi-fold --session <id> --dry-run',
    'pi-fold repair /var/lib/pi-fold/folds.sqlite --all',
  ],
  needs: [],
  installLines: [],
};

export const REPLAY_HELP: CommandHelp = {
  name: 'replay',
  summary:
    'Replay a recorded Pi, Claude Code, Codex or chat-trajectory session through each runtime and report tokens and dollars',
  usage: `pi-fold replay <session.jsonl> [--arms ${DEFAULT_REPLAY_ARMS.join(',')}] [--out dir] [--price-list name] [--budget tokens] [--cap tokens] [--max-requests N] [--clock recorded|uniform] [--calibration recorded|off] [--json]`,
  options: [
    {
      name: 'arms',
      value: 'list',
      description: `comma-separated arms to run (default ${DEFAULT_REPLAY_ARMS.join(',')})`,
    },
    {
      name: 'out',
      value: 'dir',
      description:
        "also write the per-request CSV, the JSON summaries and the HTML report there, and keep each fold arm's store (replay-fold-stores/<arm>/, replaced on each run) with its viewer page",
    },
    {
      name: 'price-list',
      value: 'name',
      description: "price the requests with this list (default: the recorded model's prices)",
    },
    { name: 'budget', value: 'tokens', description: "pi-fold's window budget (default: the recorded model's window)" },
    {
      name: 'cap',
      value: 'tokens',
      description: "the provider's hard prompt limit (default: the recorded model's window)",
    },
    { name: 'max-requests', value: 'N', description: 'replay only the first N requests' },
    {
      name: 'clock',
      value: 'recorded|uniform',
      description: 'space requests as recorded or evenly (default recorded)',
    },
    {
      name: 'calibration',
      value: 'recorded|off',
      description:
        "reproduce the recording's host block, tokenizer and cold caches from its usage, or send the conversation alone (default recorded)",
    },
    JSON_REPORT,
  ],
  examples: ['pi-fold replay ~/.pi/agent/sessions/<project>/<session>.jsonl --out replay-report'],
  // The lab drives real Pi sessions (either supported line) and counts tokens with o200k.
  needs: [`Pi (${PI_LINES.map((line) => line.install).join(' or ')})`, REPLAY_TOKENIZER],
  installLines: replayInstallLines(),
};

export const DOCTOR_HELP: CommandHelp = {
  name: 'doctor',
  summary:
    "Check a Pi install for pi-fold: Pi and Node, Pi's settings (a registered .tgz), where pi-fold loads from, the session stores",
  usage: 'pi-fold doctor [--agent-dir dir] [--json]',
  options: [
    {
      name: 'agent-dir',
      value: 'dir',
      description: "Pi's agent folder (default $PI_CODING_AGENT_DIR, else ~/.pi/agent)",
    },
    JSON_REPORT,
  ],
  examples: ['pi-fold doctor --agent-dir ~/.pi/agent', 'pi-fold doctor --json'],
  needs: [],
  installLines: [],
};
