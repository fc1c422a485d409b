import type { BoneMapChoice } from '../retarget/bone-map.ts';
import type { ProgressListener } from '../../core/progress.ts';

/** Where a command writes: its report lines, its errors, and (on a terminal) a progress line. */
export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
  /** Progress text; `final` ends the line. Omit to print no progress. */
  progress?(text: string, final: boolean): void;
}

/** stdout/stderr, with the progress line rewritten in place on a terminal (one line per 10 % otherwise). */
export const consoleIO: CommandIO = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  progress(text, final) {
    if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${text}${final ? '\n' : ''}`);
    else process.stderr.write(`${text}\n`);
  },
};

/** Parsed `--name value` / `--flag` arguments; repeated options collect every value. */
export interface ParsedArgs {
  values: Map<string, string[]>;
  flags: Set<string>;
  positional: string[];
}

/**
 * Parses command-line arguments. `valueOptions` take a value (`--source a.glb` or `--source=a.glb`);
 * anything else starting with `--` is a flag. Unknown options throw, naming the known ones.
 */
export function parseArgs(argv: readonly string[], valueOptions: readonly string[], flagOptions: readonly string[]): ParsedArgs {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (valueOptions.includes(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
      values.set(name, [...(values.get(name) ?? []), value]);
    } else if (flagOptions.includes(name)) {
      flags.add(name);
    } else {
      throw new Error(`unknown option --${name} (options: ${[...valueOptions, ...flagOptions].map((o) => `--${o}`).join(', ')})`);
    }
  }
  return { values, flags, positional };
}

/** A bone-map option value: 'detect' (default), 'auto', 'mannequin', 'cc4' or 'mixamo'. */
export function mapChoice(value: string | undefined): BoneMapChoice {
  if (value === undefined) return 'detect';
  if (['detect', 'auto', 'mannequin', 'cc4', 'mixamo'].includes(value)) return value as BoneMapChoice;
  throw new Error(`unknown bone map "${value}" (choose detect, auto, mannequin, cc4 or mixamo)`);
}

/** A progress callback for long work: "label [12/55] clip", at most once per 10 % off a terminal. */
export function progressPrinter(label: string, io: CommandIO): ProgressListener & { done(): void } {
  const tty = process.stderr.isTTY === true;
  let lastDecile = -1;
  const print = (({ done, total, label: clip = '' }) => {
    const decile = total ? Math.floor((done / total) * 10) : -1;
    if (tty || decile !== lastDecile || done === total) io.progress?.(`${label} [${done}/${total ?? '?'}] ${clip}`, !tty);
    lastDecile = decile;
  }) as ProgressListener & { done(): void };
  print.done = () => {
    if (tty) io.progress?.('', true);
  };
  return print;
}

/** Rewrites single-letter options (`-o x`) to their long names (`--out x`) before {@link parseArgs}. */
export function expandShortOptions(argv: readonly string[], short: Readonly<Record<string, string>>): string[] {
  return argv.map((arg) => {
    const match = /^-([a-zA-Z])$/.exec(arg);
    const long = match ? short[match[1]!] : undefined;
    if (match && !long)
      throw new Error(
        `unknown option ${arg} (short options: ${Object.keys(short)
          .map((k) => `-${k}`)
          .join(', ')})`,
      );
    return long ? `--${long}` : arg;
  });
}
