// The registry of genuine privacy objects: each object dpnoise made, frozen, with its event (what
// was released, engine/events.ts) and the event of the lower end of its certified range; each
// object's epsilon search; and each event's accountant, made on first use. compose and the
// ledger take only objects recorded here.
import { memo } from '../core/memo.js';
import { oneCall, type PldAccount, pldAccount } from '../engine/accountant.js';
import type { Event } from '../engine/events.js';
/** epsilon(delta), which may stop refining once it is at most `enough` (engine/accountant.ts, PldAccount). */
type Search = (delta: number, enough?: number) => number;
/** Each privacy object's epsilon as a Search. */
export const searches = new WeakMap<object, Search>();

/** The privacy objects this module made, each with its event: compose takes these only. */
export const genuine = new WeakMap<object, Event>();
/**
 * Each object's event for the lower end of its certified range, where it differs from its event
 * (parameters rounded down instead of up).
 */
const floors = new WeakMap<object, Event>();
export const floorOf = (privacy: object) => floors.get(privacy) ?? genuine.get(privacy)!;
/** The accountant of each event the privacy-loss distribution can take, made on first use. */
const accounts = new WeakMap<Event, PldAccount>();

export const accountOf = (event: Event): PldAccount => memo(accounts, event, () => pldAccount(event));

/** What issue wraps: a privacy object's three figures, before each becomes one call of the accountant. */
interface Issuable {
  epsilon(delta: number): number;
  delta(epsilon: number): number;
  bounds(delta: number): unknown;
}

/** Freezes a privacy object and records it as genuine, with its event (and the lower range's). */
export function issue<T extends Issuable>(privacy: T, event: Event, lower?: Event): T {
  // Each figure is one call of the accountant, with its work budget (engine/accountant.ts, oneCall).
  const { epsilon, delta, bounds } = privacy as T & { epsilon: Search };
  Object.assign(privacy, {
    epsilon: (d: number) => oneCall(() => epsilon(d)),
    delta: (e: number) => oneCall(() => delta(e)),
    bounds: (d: number) => oneCall(() => bounds(d)),
  });
  searches.set(privacy, (d, enough) => oneCall(() => epsilon(d, enough)));
  Object.freeze(privacy);
  genuine.set(privacy, event);
  if (lower) floors.set(privacy, lower);
  return privacy;
}

/** The event of a privacy object dpnoise made (for a budget's record), or undefined for anything else. */
export function eventOf(privacy: unknown): Event | undefined {
  return typeof privacy === 'object' && privacy !== null ? genuine.get(privacy) : undefined;
}
