/**
 * How the CLI reports an error no command expected: one line, `pi-fold <command>: <code>:
 * <message>`, never a stack, since whatever a user typed must not reach them as a crash. A
 * stack (with its causes) only when `PI_FOLD_DEBUG=1`.
 */
export function failureLines(command: string | undefined, error: unknown, debug = debugEnabled()): string {
  const line = `pi-fold${command === undefined ? '' : ` ${command}`}: ${describeError(error)}`;
  if (!debug) return `${line} (PI_FOLD_DEBUG=1 prints the stack)`;
  const stacks: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    stacks.push(current instanceof Error ? (current.stack ?? String(current)) : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return [line, ...stacks.map((stack, depth) => (depth === 0 ? stack : `caused by: ${stack}`))].join('\n');
}

/** Whether the user asked for stack traces. */
export function debugEnabled(): boolean {
  const value = process.env.PI_FOLD_DEBUG;
  return value !== undefined && value !== '' && value !== '0';
}

/** `CODE: first line of the message`; a FoldError's message already starts with its code. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const firstLine = error.message.split('\n', 1)[0] ?? '';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && !firstLine.startsWith(code)) return `${code}: ${firstLine}`;
  return firstLine.length > 0 ? firstLine : error.name;
}
