// The command line's arguments: options parsed strictly (a mistake names the valid ones), and the
// number and choice values every command reads.
import { parseArgs } from 'node:util';
import { decimal } from './formats.js';
import { UsageError } from './io.js';

export type Values = Record<string, string | boolean | string[] | undefined>;

/** The command's options ('strings': an option that may be repeated); a mistake names the valid ones. */
export function options(command: string, args: string[], names: Record<string, 'string' | 'boolean' | 'strings'>): Values {
  const spec = Object.fromEntries(
    Object.entries(names).map(([name, type]) => [name, type === 'strings' ? { type: 'string' as const, multiple: true } : { type }]),
  );
  try {
    return parseArgs({ args, options: spec, strict: true }).values as Values;
  } catch (error) {
    if (!(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw error;
    const what = (error as Error).message.replace(/\. .*$/s, ''); // its first sentence
    throw new UsageError(
      `${what}. The options of "dpnoise ${command}" are ${Object.keys(names)
        .map((n) => `--${n}`)
        .join(', ')}.`,
    );
  }
}

export function required(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.length === 0) throw new UsageError(`--${name} is required.`);
  return v;
}

export function numbers(text: string, name: string): number[] {
  return text
    .trim()
    .split(/[\s,]+/)
    .map((part, i) => {
      const x = decimal(part);
      if (!Number.isFinite(x)) throw new UsageError(`--${name}: entry ${i + 1} ("${part}") is not a number; give numbers separated by commas.`);
      return x;
    });
}

export function optionalNumber(values: Values, name: string): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const x = decimal(String(v));
  if (!Number.isFinite(x)) throw new UsageError(`--${name} must be a number; got "${String(v)}".`);
  return x;
}

/** One of `choices`; the first when the option is not given. */
export function choice<T extends string>(values: Values, name: string, choices: readonly T[]): T {
  const v = values[name] ?? choices[0]!;
  if (!choices.includes(v as T)) throw new UsageError(`--${name} must be ${choices.join(' or ')}; got "${String(v)}".`);
  return v as T;
}

/** COLUMN:LOW:HIGH[:REST] of an option (the column's public bounds, low < high checked by the caller). */
export function columnBounds(text: string, name: string, rest = false): { column: string; bounds: [number, number]; tail: string | undefined } {
  const parts = text.split(':');
  const tail = rest ? parts.pop() : undefined;
  const [high, low, ...column] = parts.reverse();
  if (column.length === 0 || high === undefined || low === undefined || (rest && tail === undefined)) {
    throw new UsageError(`--${name} must be COLUMN:LOW:HIGH${rest ? ':Q' : ''}; got "${text}".`);
  }
  const bounds = [decimal(low), decimal(high)] as [number, number];
  if (!bounds.every(Number.isFinite)) throw new UsageError(`--${name} "${text}": the bounds must be numbers.`);
  return { column: column.reverse().join(':'), bounds, tail };
}

/**
 * A --sum, --mean or --variance: COLUMN:LOW:HIGH, either end (or both) `private` to find it
 * privately, or COLUMN:private for [-b, b] found privately (docs/aggregates.md, "Bounds found
 * privately").
 */
export function findableBounds(text: string, name: string): { column: string; bounds: [number | 'private', number | 'private'] | 'private' } {
  const parts = text.split(':');
  const [high, low] = [parts.at(-1), parts.at(-2)];
  // COLUMN:private, unless LOW:private reads as an end (a number or `private`).
  if (high === 'private' && parts.length >= 2 && (parts.length === 2 || (low !== 'private' && !Number.isFinite(decimal(low!)))))
    return { column: parts.slice(0, -1).join(':'), bounds: 'private' };
  if (parts.length < 3) throw new UsageError(`--${name} must be COLUMN:LOW:HIGH, an end may be private (COLUMN:0:private), or COLUMN:private; got "${text}".`);
  const end = (x: string) => (x === 'private' ? x : decimal(x));
  const bounds = [end(low!), end(high!)] as [number | 'private', number | 'private'];
  if (!bounds.every((b) => b === 'private' || Number.isFinite(b))) throw new UsageError(`--${name} "${text}": the bounds must be numbers or private.`);
  return { column: parts.slice(0, -2).join(':'), bounds };
}
