/** A stream the bar writes to; `isTTY` decides between one updating line and sparse lines. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** Progress of a long run, on stderr. */
export interface ProgressBar {
  /** Advance by `steps` (default 1); `note` replaces the text shown after the count. */
  tick(steps?: number, note?: string): void;
  /** Finish the line (prints the final count once). */
  done(): void;
}

const BAR_WIDTH = 24;

/**
 * A progress bar for long lab runs. On a terminal it redraws one line in place; in a log
 * (CI, a pipe) it prints a plain line each time another 10% is crossed, so logs stay short.
 */
export function createProgressBar(label: string, total: number, stream: ProgressStream = process.stderr): ProgressBar {
  let current = 0;
  let lastDecile = 0;
  let note = '';
  let finished = false;
  const line = (): string => {
    const fraction = total <= 0 ? 1 : Math.min(1, current / total);
    const filled = Math.round(fraction * BAR_WIDTH);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${current}/${total} ${Math.floor(fraction * 100)}%${note ? ` ${note}` : ''}`;
  };
  return {
    tick(steps = 1, nextNote) {
      if (finished) return;
      current += steps;
      if (nextNote !== undefined) note = nextNote;
      if (stream.isTTY === true) {
        stream.write(`\r\x1b[2K${line()}`);
        return;
      }
      const decile = total <= 0 ? 10 : Math.floor((Math.min(current, total) / total) * 10);
      if (decile > lastDecile && decile < 10) {
        lastDecile = decile;
        stream.write(`${line()}\n`);
      }
    },
    done() {
      if (finished) return;
      finished = true;
      stream.write(stream.isTTY === true ? `\r\x1b[2K${line()}\n` : `${line()} done\n`);
    },
  };
}
