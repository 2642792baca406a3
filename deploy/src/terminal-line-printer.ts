const COLOURS = [36, 35, 33, 32, 34, 31];
const LEVEL_COLOURS: Record<string, number> = { trace: 90, debug: 90, info: 32, warn: 33, error: 31, fatal: 31 };
const HIDDEN_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service.name']);

/**
 * Prints a line of the `index`th process `name` to this process's stdout, prefixed with the
 * name (padded to `nameWidth`); in a terminal the prefix is coloured and a pino JSON line reads
 * `12:00:00.000 INFO message {rest}`.
 */
export function terminalLinePrinter(name: string, index: number, nameWidth: number): (line: string) => void {
  const tty = process.stdout.isTTY === true;
  const label = name.padEnd(nameWidth);
  const prefix = tty ? `\x1b[${COLOURS[index % COLOURS.length]}m${label} |\x1b[0m ` : `${label} | `;
  return (line) => process.stdout.write(`${prefix}${tty ? humanise(line) : line}\n`);
}

/** For a terminal: a pino JSON line as `12:00:00.000 INFO message {rest}`; anything else as is. */
function humanise(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (typeof entry.msg !== 'string' || typeof entry.level !== 'string') return line;
    const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
    const rest = Object.fromEntries(Object.entries(entry).filter(([k]) => !HIDDEN_FIELDS.has(k)));
    const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
    const level = `\x1b[${LEVEL_COLOURS[entry.level] ?? 0}m${entry.level.toUpperCase().padEnd(5)}\x1b[0m`;
    return `${time} ${level} ${entry.msg}${extra}`;
  } catch {
    return line;
  }
}
