// dpnoise's own events (engine/events.ts) as JSON, for a budget saved to a file and read back: every
// field kept, 'close' events included (dp_accounting's DpEvent has no such event, so the DpEvent
// form would lose the tight figure of grid-mode Gaussian releases). Finite numbers round-trip
// exactly through JSON; Infinity, which JSON writes as null, is written as the string 'Infinity'.
// Reading checks every field against what dpnoise writes there (ranges, whole numbers, a close
// event's parts agreeing), so a damaged or hand-edited entry is refused rather than read as a
// smaller spending. It is no integrity check: an entry deleted, or edited consistently, is read as
// written (docs/aggregates.md, "The budget").
import { describe } from '../core/validate.js';
import { CLOSE_RATIO, SLACK_LOWER, SLACK_UPPER } from '../engine/discrete-gaussian.js';
import type { Event } from '../engine/events.js';

/**
 * One recorded release in a budget's JSON: dpnoise's event, every field kept.
 *
 * @group Accounting
 */
export type EventJson = {
  /** What was released: 'gaussian', 'laplace', 'discrete-gaussian', 'close', 'composed', ... */
  readonly type: string;
  readonly [field: string]: unknown;
};

/**
 * The number fields of each event type, with the values dpnoise writes there: the ranges its
 * constructors (and readDpEvent) accept, integers where they are counts, Infinity (no privacy) for
 * a loss alone. Anything else in a file would read as a different, perhaps smaller, spending.
 */
type Field = { readonly name: string; readonly min: number; readonly max: number; readonly minOpen?: true; readonly integer?: true };
const LOSS = { min: 0, max: Infinity, minOpen: true } as const; // a loss: > 0, Infinity for no privacy
const COUNT = { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true } as const;
const SENSITIVITY = { min: 1, max: 2 ** 40, integer: true } as const; // whole grid steps, as readDpEvent
const NUMBERS: Record<string, readonly Field[]> = {
  gaussian: [{ name: 'mu', ...LOSS }],
  laplace: [{ name: 'epsilon', ...LOSS }],
  'discrete-laplace': [
    { name: 'scale', min: 0, max: Number.MAX_VALUE, minOpen: true },
    { name: 'sensitivity', ...SENSITIVITY },
  ],
  'discrete-gaussian': [
    { name: 'variance', min: 0, max: Number.MAX_VALUE, minOpen: true },
    { name: 'sensitivity', ...SENSITIVITY },
  ],
  pure: [{ name: 'epsilon', min: 0, max: Infinity }],
  zcdp: [{ name: 'rho', min: 0, max: Infinity }],
  poisson: [{ name: 'rate', min: 0, max: 1, minOpen: true }],
  'without-replacement': [
    { name: 'size', ...COUNT },
    { name: 'population', ...COUNT },
  ],
  allocation: [{ name: 'steps', ...COUNT }],
  composed: [],
  // The slacks of docs/accounting.md, "Discrete Gaussian", never 0.
  close: [{ name: 'slack', min: SLACK_UPPER, max: SLACK_LOWER }],
  thresholded: [{ name: 'delta', min: 0, max: 1, minOpen: true }],
};
/** The event fields of each type that hold events. */
const CHILDREN: Record<string, readonly string[]> = {
  poisson: ['event'],
  'without-replacement': ['event'],
  allocation: ['event'],
  close: ['event', 'fallback'],
  thresholded: ['event'],
};
const MAX_DEPTH = 1000;

const writeNumber = (x: number) => (Number.isFinite(x) ? x : String(x));

/** The event as JSON. */
export function writeEvent(event: Event): EventJson {
  const out: Record<string, unknown> = { type: event.type };
  const e = event as unknown as Record<string, unknown>;
  for (const { name } of NUMBERS[event.type]!) out[name] = writeNumber(e[name] as number);
  for (const name of CHILDREN[event.type] ?? []) out[name] = writeEvent(e[name] as Event);
  if (event.type === 'composed') out.events = event.events.map(([child, times]) => [writeEvent(child), times]);
  return out as EventJson;
}

function damaged(where: string, what: string, value: unknown): never {
  throw new TypeError(`dpnoise: \`${where}\` must be ${what} (a budget's record as toJSON wrote it); got ${describe(value)}.`);
}

/** A number field in its range: 'Infinity' for Infinity where the range has it. */
function readNumber(value: unknown, where: string, field: Field): number {
  const x = value === 'Infinity' && field.max === Infinity ? Infinity : value;
  const inRange = typeof x === 'number' && (field.minOpen ? x > field.min : x >= field.min) && x <= field.max && (!field.integer || Number.isInteger(x));
  if (!inRange) {
    const range = `${field.minOpen ? '>' : '>='} ${field.min} and <= ${field.max === Infinity ? "'Infinity'" : field.max}`;
    damaged(where, `${field.integer ? 'a whole number' : 'a number'} ${range}`, value);
  }
  return x as number;
}

/**
 * A close event's parts as grid-mode Gaussian noise makes them (engine/discrete-gaussian.ts): a Gaussian
 * of distance mu above its zCDP fallback's sqrt(2 rho), by at most CLOSE_RATIO, with room for
 * rounding.
 */
function checkClose(event: Event, fallback: Event, where: string): void {
  const agree =
    event.type === 'gaussian' &&
    fallback.type === 'zcdp' &&
    event.mu >= Math.sqrt(2 * fallback.rho) * (1 - 2 ** -40) &&
    event.mu <= Math.sqrt(2 * fallback.rho) * CLOSE_RATIO * (1 + 2 ** -40);
  if (!agree) damaged(where, "a 'close' event whose Gaussian and zCDP fallback describe one release", { event, fallback });
}

/** The event written by writeEvent, checked field by field. */
export function readEvent(json: unknown, where: string, depth = 0): Event {
  if (depth > MAX_DEPTH) throw new RangeError(`dpnoise: \`${where}\` nests events more than ${MAX_DEPTH} deep.`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) damaged(where, 'an event object', json);
  const o = json as Record<string, unknown>;
  const type = Object.hasOwn(o, 'type') ? o.type : undefined;
  if (typeof type !== 'string' || !Object.hasOwn(NUMBERS, type)) damaged(`${where}.type`, `one of ${Object.keys(NUMBERS).join(', ')}`, type);
  const fields = [...NUMBERS[type]!.map((f) => f.name), ...(CHILDREN[type] ?? []), ...(type === 'composed' ? ['events'] : [])];
  const extra = Object.keys(o).find((k) => k !== 'type' && !fields.includes(k));
  if (extra !== undefined) damaged(`${where}.${extra}`, 'absent (not a field of this event)', o[extra]);
  const out: Record<string, unknown> = { type };
  for (const field of NUMBERS[type]!) out[field.name] = readNumber(o[field.name], `${where}.${field.name}`, field);
  for (const name of CHILDREN[type] ?? []) out[name] = readEvent(o[name], `${where}.${name}`, depth + 1);
  if (type === 'without-replacement' && (out.size as number) > (out.population as number))
    damaged(`${where}.size`, `a whole number <= its population, ${out.population}`, out.size);
  if (type === 'close') checkClose(out.event as Event, out.fallback as Event, where);
  if (type === 'composed') {
    if (!Array.isArray(o.events)) damaged(`${where}.events`, 'an array of [event, times] pairs', o.events);
    out.events = (o.events as unknown[]).map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) damaged(`${where}.events[${i}]`, 'an [event, times] pair', pair);
      const times = pair[1];
      if (!Number.isSafeInteger(times) || (times as number) < 0) damaged(`${where}.events[${i}][1]`, 'a whole number >= 0', times);
      return Object.freeze([readEvent(pair[0], `${where}.events[${i}][0]`, depth + 1), times as number]);
    });
  }
  return Object.freeze(out) as unknown as Event;
}
