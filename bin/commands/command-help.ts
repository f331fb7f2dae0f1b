import { DEFAULT_REPLAY_ARMS } from '../../lab/arms/arm-profile.ts';

/**
 * What `pi-fold --help` says about one command, kept apart from the command's code so the help
 * (and a command that is not chosen) never loads what that command imports: `replay` pulls in
 * Pi and the tokenizer, which `verify` and `gc` must run without.
 */
export interface CommandHelp {
  readonly name: string;
  /** One line for `pi-fold --help`. */
  readonly summary: string;
  readonly usage: string;
  /** Optional packages the command loads; named in the error when one is missing. */
  readonly needs: readonly string[];
}

export const VERIFY_HELP: CommandHelp = {
  name: 'verify',
  summary: 'Re-hash every blob and record of a store and report each problem by key',
  usage:
    'pi-fold verify <store-dir | file.sqlite | redis://… | postgres://…> [--namespace pi-fold] [--table keyv] [--json]',
  needs: [],
};

export const VIEW_HELP: CommandHelp = {
  name: 'view',
  summary:
    'Write one self-contained HTML page of a session: prompt sizes, commits, the fold forest, exact sources, search (reads the store only)',
  usage:
    'pi-fold view <store-dir | file.sqlite | redis://… | postgres://…> [--session id] [--out file.html] [--namespace pi-fold] [--table keyv]',
  needs: [],
};

export const GC_HELP: CommandHelp = {
  name: 'gc',
  summary: 'Delete blobs no fold or session references (--dry-run reports what it would free)',
  usage:
    'pi-fold gc <store-dir | file.sqlite | redis://… | postgres://…> [--dry-run] [--grace-minutes 60] [--namespace pi-fold] [--table keyv] [--json]',
  needs: [],
};

export const REPAIR_HELP: CommandHelp = {
  name: 'repair',
  summary: 'Rebuild a session whose state cannot be read from the fold records and blobs the store verifies',
  usage:
    'pi-fold repair <store-dir | file.sqlite | redis://… | postgres://…> --session <id> [--dry-run] [--namespace pi-fold] [--table keyv] [--json]',
  needs: [],
};

export const REPLAY_HELP: CommandHelp = {
  name: 'replay',
  summary:
    'Replay a recorded Pi, Claude Code, Codex or chat-trajectory session through each runtime and report tokens and dollars',
  usage: `pi-fold replay <session.jsonl> [--arms ${DEFAULT_REPLAY_ARMS.join(',')}] [--out dir] [--price-list name] [--budget tokens] [--cap tokens] [--max-requests N] [--clock recorded|uniform] [--json]`,
  // The lab drives real Pi 0.x sessions and counts tokens with o200k.
  needs: ['@mariozechner/pi-coding-agent@0.73.1', 'gpt-tokenizer@4.0.0'],
};
