// dpnoise's own events (events.ts) as JSON, for a budget saved to a file and read back: every
// field kept, 'close' events included (dp_accounting's DpEvent has no such event, so the DpEvent
// form would lose the tight figure of grid-mode Gaussian releases). Finite numbers round-trip
// exactly through JSON; Infinity, which JSON writes as null, is written as the string 'Infinity'.
// Reading checks every field, so a damaged file is refused rather than read as a smaller spending.
import { describe } from '../core/validate.js';
import type { Event } from './events.js';

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

/** The number fields of each event type, and whether each may be Infinity (no privacy). */
const NUMBERS: Record<string, readonly string[]> = {
  gaussian: ['mu'],
  laplace: ['epsilon'],
  'discrete-laplace': ['scale', 'sensitivity'],
  'discrete-gaussian': ['variance', 'sensitivity'],
  pure: ['epsilon'],
  zcdp: ['rho'],
  poisson: ['rate'],
  'without-replacement': ['size', 'population'],
  allocation: ['steps'],
  composed: [],
  close: ['slack'],
  thresholded: ['delta'],
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
  for (const name of NUMBERS[event.type]!) out[name] = writeNumber(e[name] as number);
  for (const name of CHILDREN[event.type] ?? []) out[name] = writeEvent(e[name] as Event);
  if (event.type === 'composed') out.events = event.events.map(([child, times]) => [writeEvent(child), times]);
  return out as EventJson;
}

function damaged(where: string, what: string, value: unknown): never {
  throw new TypeError(`dpnoise: \`${where}\` must be ${what} (a budget's record as toJSON wrote it); got ${describe(value)}.`);
}

/** A number field: a number >= 0, or 'Infinity'. */
function readNumber(value: unknown, where: string): number {
  const x = value === 'Infinity' ? Infinity : value;
  if (typeof x !== 'number' || !(x >= 0)) damaged(where, "a number >= 0 or 'Infinity'", value);
  return x;
}

/** The event written by writeEvent, checked field by field. */
export function readEvent(json: unknown, where: string, depth = 0): Event {
  if (depth > MAX_DEPTH) throw new RangeError(`dpnoise: \`${where}\` nests events more than ${MAX_DEPTH} deep.`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) damaged(where, 'an event object', json);
  const o = json as Record<string, unknown>;
  const type = Object.hasOwn(o, 'type') ? o.type : undefined;
  if (typeof type !== 'string' || !Object.hasOwn(NUMBERS, type)) damaged(`${where}.type`, `one of ${Object.keys(NUMBERS).join(', ')}`, type);
  const fields = [...NUMBERS[type]!, ...(CHILDREN[type] ?? []), ...(type === 'composed' ? ['events'] : [])];
  const extra = Object.keys(o).find((k) => k !== 'type' && !fields.includes(k));
  if (extra !== undefined) damaged(`${where}.${extra}`, 'absent (not a field of this event)', o[extra]);
  const out: Record<string, unknown> = { type };
  for (const name of NUMBERS[type]!) out[name] = readNumber(o[name], `${where}.${name}`);
  for (const name of CHILDREN[type] ?? []) out[name] = readEvent(o[name], `${where}.${name}`, depth + 1);
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
