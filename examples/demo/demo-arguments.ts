import { FoldError } from '../../core/fold-error.ts';

export interface DemoOptions {
  readonly requests: number;
  readonly window: number;
  readonly seed: number;
  readonly quiet: boolean;
  readonly storeRoot: string | undefined;
}

const USAGE =
  'usage: npm run demo -- [--requests N (20-5000)] [--window TOKENS (20000-2000000)] [--seed N] [--quiet] [--store-root DIR]';

/** Parse the demo's flags; a wrong flag or value is refused with the usage line. */
export function parseDemoArguments(argv: readonly string[]): DemoOptions {
  const options = { requests: 300, window: 200_000, seed: 1, quiet: false, storeRoot: undefined as string | undefined };
  for (let position = 0; position < argv.length; position += 1) {
    const flag = argv[position]!;
    const value = argv[position + 1];
    const number = () => {
      position += 1;
      const parsed = Number(value);
      if (value === undefined || !Number.isInteger(parsed))
        throw new FoldError('SETTINGS.INVALID', `${flag} needs an integer\n${USAGE}`);
      return parsed;
    };
    if (flag === '--requests') options.requests = number();
    else if (flag === '--window') options.window = number();
    else if (flag === '--seed') options.seed = number();
    else if (flag === '--quiet') options.quiet = true;
    else if (flag === '--store-root') {
      if (value === undefined) throw new FoldError('SETTINGS.INVALID', `--store-root needs a directory\n${USAGE}`);
      options.storeRoot = value;
      position += 1;
    } else throw new FoldError('SETTINGS.INVALID', `unknown flag ${flag}\n${USAGE}`);
  }
  if (options.requests < 20 || options.requests > 5000)
    throw new FoldError('SETTINGS.INVALID', `--requests must be 20-5000\n${USAGE}`);
  if (options.window < 20_000 || options.window > 2_000_000)
    throw new FoldError('SETTINGS.INVALID', `--window must be 20000-2000000\n${USAGE}`);
  return options;
}
