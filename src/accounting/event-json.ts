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
const NUMBERS: Readonly<Record<Event['type'], readonly Field[]>> = {
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
const CHILDREN: Readonly<Partial<Record<Event['type'], readonly string[]>>> = {
  poisson: ['event'],
  'without-replacement': ['event'],
  allocation: ['event'],
  close: ['event', 'fallback'],
  thresholded: ['event'],
};
const MAX_DEPTH = 1000;

const writeNumber = (x: number) => (Number.isFinite(x) ? x : String(x));

const isType = (type: unknown): type is Event['type'] => typeof type === 'string' && Object.hasOwn(NUMBERS, type);
const isEvent = (value: unknown): value is Event => typeof value === 'object' && value !== null && 'type' in value && isType(value.type);

/** The fields of an event of this type besides `type`, in the order they are written. */
const fieldsOf = (type: Event['type']): string[] => [
  ...NUMBERS[type].map((f) => f.name),
  ...(CHILDREN[type] ?? []),
  ...(type === 'composed' ? ['events'] : []),
];

/** A field's value as JSON: a number, an event, or a composition's [event, times] pairs. */
function writeValue(value: unknown): unknown {
  if (typeof value === 'number') return writeNumber(value);
  if (Array.isArray(value)) return value.map(writeValue);
  if (isEvent(value)) return writeEvent(value);
  throw new Error('dpnoise: internal error: an event field is neither a number, an event nor a list.');
}

/** The event as JSON. */
export function writeEvent(event: Event): EventJson {
  const fields: Readonly<Record<string, unknown>> = event;
  return { type: event.type, ...Object.fromEntries(fieldsOf(event.type).map((name) => [name, writeValue(fields[name])])) };
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

/** A composition's [event, times] pairs, checked. */
function readPairs(value: unknown, where: string, depth: number): ReadonlyArray<readonly [Event, number]> {
  if (!Array.isArray(value)) damaged(`${where}.events`, 'an array of [event, times] pairs', value);
  return value.map((pair: unknown, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) damaged(`${where}.events[${i}]`, 'an [event, times] pair', pair);
    const times: unknown = pair[1];
    if (typeof times !== 'number' || !Number.isSafeInteger(times) || times < 0) damaged(`${where}.events[${i}][1]`, 'a whole number >= 0', times);
    return Object.freeze([readEvent(pair[0], `${where}.events[${i}][0]`, depth + 1), times] as const);
  });
}

/** The event of this type from its checked fields, each read once. */
function readFields(type: Event['type'], o: Readonly<Record<string, unknown>>, where: string, depth: number): Event {
  const n = (name: string) => readNumber(o[name], `${where}.${name}`, NUMBERS[type].find((f) => f.name === name)!);
  const e = (name: string) => readEvent(o[name], `${where}.${name}`, depth + 1);
  switch (type) {
    case 'gaussian':
      return { type, mu: n('mu') };
    case 'laplace':
    case 'pure':
      return { type, epsilon: n('epsilon') };
    case 'discrete-laplace':
      return { type, scale: n('scale'), sensitivity: n('sensitivity') };
    case 'discrete-gaussian':
      return { type, variance: n('variance'), sensitivity: n('sensitivity') };
    case 'zcdp':
      return { type, rho: n('rho') };
    case 'poisson':
      return { type, rate: n('rate'), event: e('event') };
    case 'without-replacement':
      return { type, size: n('size'), population: n('population'), event: e('event') };
    case 'allocation':
      return { type, steps: n('steps'), event: e('event') };
    case 'composed':
      return { type, events: readPairs(o.events, where, depth) };
    case 'close':
      return { type, slack: n('slack'), event: e('event'), fallback: e('fallback') };
    case 'thresholded':
      return { type, delta: n('delta'), event: e('event') };
  }
}

/** The event written by writeEvent, checked field by field. */
export function readEvent(json: unknown, where: string, depth = 0): Event {
  if (depth > MAX_DEPTH) throw new RangeError(`dpnoise: \`${where}\` nests events more than ${MAX_DEPTH} deep.`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) damaged(where, 'an event object', json);
  const o: Readonly<Record<string, unknown>> = { ...json };
  const type = Object.hasOwn(o, 'type') ? o.type : undefined;
  if (!isType(type)) damaged(`${where}.type`, `one of ${Object.keys(NUMBERS).join(', ')}`, type);
  const fields = fieldsOf(type);
  const extra = Object.keys(o).find((k) => k !== 'type' && !fields.includes(k));
  if (extra !== undefined) damaged(`${where}.${extra}`, 'absent (not a field of this event)', o[extra]);
  const event = readFields(type, o, where, depth);
  if (event.type === 'without-replacement' && event.size > event.population)
    damaged(`${where}.size`, `a whole number <= its population, ${event.population}`, event.size);
  if (event.type === 'close') checkClose(event.event, event.fallback, where);
  return Object.freeze(event);
}
