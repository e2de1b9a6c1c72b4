// A privacy budget that keeps count: createBudget records each release it allows and refuses,
// before any noise is drawn, one that would take the composition of everything spent past the
// budget. The spending is always accounted from the record (the releases' events, composed as
// compose reads them), so a budget restored from its JSON reports exactly what the saved one did
// (docs/aggregates.md, "The budget").
import { type ApproximateTarget, type PureTarget, readTarget, type ValidTarget } from '../core/target.js';
import { hmacSha256, sameBytes } from '../core/sha256.js';
import { describe, fail, readOptions } from '../core/validate.js';
import { readEvent, writeEvent, type EventJson } from './event-json.js';
import type { Event } from '../engine/events.js';
import { compose } from './combinators.js';
import { eventOf } from './registry.js';
import { type Privacy, purePrivacy } from './privacy.js';
import { privacyOfEvent } from './reconstruct.js';

/**
 * A budget's figures: epsilon at the budget's delta (pure epsilon for a pure budget).
 *
 * @group Accounting
 */
export interface Spending {
  /** epsilon spent (or left) at `delta`. */
  readonly epsilon: number;
  /** The budget's delta (undefined for pure epsilon-DP). */
  readonly delta: number | undefined;
}

/**
 * A privacy budget that records what is spent against it (see createBudget).
 *
 * @group Accounting
 */
export interface PrivacyBudget {
  /** The budget, as given. */
  readonly total: Spending;
  /** What the releases recorded so far spend together (composed by the accountant). */
  readonly spent: Spending;
  /** total.epsilon - spent.epsilon, at the budget's delta (composition is not additive: a guide, not a promise). */
  readonly remaining: Spending;
  /** How many releases are recorded. */
  readonly releases: number;
  /** The privacy of everything recorded, composed. */
  readonly privacy: Privacy;
  /** Whether recording `privacy` as well would stay within the budget. */
  canSpend(privacy: Privacy): boolean;
  /** Records a release of `privacy`, or throws a RangeError (recording nothing) if it would exceed the budget. */
  spend(privacy: Privacy): void;
  /** The budget and its record, as JSON that restoreBudget reads back exactly. */
  toJSON(): BudgetJson;
}

/**
 * A budget saved by toJSON.
 *
 * @group Accounting
 */
export interface BudgetJson {
  /** Always 'dpnoise-budget'. */
  readonly format: 'dpnoise-budget';
  /** The format's version: 1. */
  readonly version: 1;
  /** The budget's epsilon. */
  readonly epsilon: number;
  /** The budget's delta (absent for pure epsilon-DP). */
  readonly delta?: number;
  /** Each recorded release, as its event. */
  readonly releases: readonly EventJson[];
  /** signBudget's HMAC-SHA256 of the rest, 'hmac-sha256:' and 64 hex digits (absent unless signed). */
  readonly mac?: string;
}

/**
 * The key of a budget's MAC, which the caller holds and the analyst does not: at least 16 bytes,
 * or a string of at least 16 characters (its UTF-8 bytes).
 *
 * @group Accounting
 */
export interface BudgetKey {
  /** The secret key. */
  key: Uint8Array | string;
}

/** The bytes of a key, checked; an error never shows it. */
function keyBytes(options: BudgetKey): Uint8Array {
  const { key } = readOptions('options', options, ['key']);
  const bytes = typeof key === 'string' ? new TextEncoder().encode(key) : key instanceof Uint8Array ? key : undefined;
  if (bytes === undefined || bytes.length < 16)
    fail(TypeError, 'key', 'a Uint8Array of at least 16 bytes or a string of at least 16 characters', key, { private: true });
  return bytes;
}

/** JSON with every object's keys sorted: the signed form, the same however a file's keys were ordered. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

const MAC_PREFIX = 'hmac-sha256:';

/** The MAC of a budget's JSON (without its `mac`) under the key's bytes. */
function macOf(json: Omit<BudgetJson, 'mac'>, key: Uint8Array): string {
  const mac = hmacSha256(key, new TextEncoder().encode(canonical(json)));
  return MAC_PREFIX + Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The epsilon a privacy spends at the budget's delta (pure: at delta 0). */
function epsilonAt(target: ValidTarget, privacy: Privacy): number {
  return privacy.epsilon(target.notion === 'approximate' ? target.delta : 0);
}

/**
 * What a record spends: each release rebuilt from its event as the kind it reported, composed by
 * compose, so that a live budget and one restored from JSON compute the same figures.
 */
function spending(record: readonly Event[]): Privacy {
  if (record.length === 0) return purePrivacy(0, 'composition');
  return compose(record.map((event) => ({ privacy: privacyOfEvent(event), times: 1 })));
}

/** The budgets createBudget and restoreBudget made. */
const budgets = new WeakSet<object>();

/** `value` if it is a budget dpnoise made (so its spend is dpnoise's); else a TypeError. */
export function readBudgetArgument(value: unknown): PrivacyBudget {
  if (typeof value === 'object' && value !== null && budgets.has(value)) return value as PrivacyBudget;
  throw new TypeError(`dpnoise: \`budget\` must be a budget from createBudget or restoreBudget; got ${describe(value)}.`);
}

/**
 * Called by `spend` with the budget's JSON including the new release, before the release is
 * recorded: if it throws, the spend throws and records nothing.
 */
type OnSpend = (json: BudgetJson) => void;

function makeBudget(target: ValidTarget & { notion: 'pure' | 'approximate' }, record: Event[], onSpend?: OnSpend): PrivacyBudget {
  const delta = target.notion === 'approximate' ? target.delta : undefined;
  const jsonOf = (events: readonly Event[]): BudgetJson => ({
    format: 'dpnoise-budget',
    version: 1,
    epsilon: target.epsilon,
    ...(delta === undefined ? {} : { delta }),
    releases: events.map(writeEvent),
  });
  const figures = (epsilon: number): Spending => Object.freeze({ epsilon, delta });
  let composed = spending(record);
  const eventFor = (privacy: Privacy): Event => {
    const event = eventOf(privacy);
    if (event === undefined) {
      throw new TypeError(
        `dpnoise: \`privacy\` must be a privacy object made by dpnoise (a release's \`privacy\`, gaussianPrivacy, compose, ...); got ${describe(privacy)}.`,
      );
    }
    return event;
  };
  const after = (privacy: Privacy) => spending([...record, eventFor(privacy)]);
  const within = (privacy: Privacy) => epsilonAt(target, privacy) <= target.epsilon;
  const budget: PrivacyBudget = {
    total: figures(target.epsilon),
    get spent() {
      return figures(epsilonAt(target, composed));
    },
    get remaining() {
      return figures(Math.max(0, target.epsilon - epsilonAt(target, composed)));
    },
    get releases() {
      return record.length;
    },
    get privacy() {
      return composed;
    },
    canSpend: (privacy) => within(after(privacy)),
    spend(privacy) {
      const next = after(privacy);
      const epsilon = epsilonAt(target, next);
      if (!(epsilon <= target.epsilon)) {
        throw new RangeError(
          `dpnoise: this release would exceed the budget: with it the releases spend epsilon ${epsilon}${delta === undefined ? '' : ` at delta ${delta}`}, above ${target.epsilon}; nothing was spent.`,
        );
      }
      const event = eventFor(privacy);
      onSpend?.(jsonOf([...record, event]));
      record.push(event);
      composed = next;
    },
    toJSON: () => jsonOf(record),
  };
  budgets.add(Object.freeze(budget));
  return budget;
}

function readLedgerTarget(o: Record<string, unknown>): ValidTarget & { notion: 'pure' | 'approximate' } {
  return readTarget(o, ['pure', 'approximate']) as ValidTarget & { notion: 'pure' | 'approximate' };
}

/**
 * A privacy budget, (epsilon, delta)-DP or pure epsilon-DP, that refuses releases beyond it: pass
 * each release's `privacy` to `spend` before releasing (dpnoise/aggregate does this itself). What
 * is spent is the composition of every recorded release by the accountant (compose's tightest
 * route), so a budget of (2, 1e-6) holds far more than two Gaussian releases at (1, 1e-6).
 *
 * @example
 * ```ts
 * import { createBudget, gaussianMechanism, restoreBudget } from 'dpnoise';
 *
 * const budget = createBudget({ epsilon: 2, delta: 1e-6 });
 * const m = gaussianMechanism({ sensitivity: [1, 1], epsilon: 1, delta: 1e-6 });
 * budget.spend(m.privacy); // throws, recording nothing, if it would exceed the budget
 * const released = m.release([10, 20]);
 * console.log(released, budget.spent.epsilon, budget.remaining.epsilon); // about 1 and 1
 * const saved = JSON.stringify(budget);
 * console.log(restoreBudget(JSON.parse(saved)).spent.epsilon === budget.spent.epsilon); // true
 * ```
 *
 * @group Accounting
 */
export function createBudget(options: ApproximateTarget | PureTarget): PrivacyBudget {
  const o = readOptions('options', options, ['epsilon', 'delta']);
  return makeBudget(readLedgerTarget(o), []);
}

/**
 * A budget saved with `toJSON` (or `JSON.stringify(budget)`), read back with its record: it
 * reports the same spending to the last digit and refuses the same releases.
 *
 * @group Accounting
 */
export function restoreBudget(json: BudgetJson, options?: BudgetKey): PrivacyBudget {
  if (options !== undefined) return restoreBudgetWith(verified(json, keyBytes(options)));
  if (typeof json === 'object' && json !== null && Object.hasOwn(json, 'mac')) {
    throw new TypeError('dpnoise: `options.key` must be given for a signed budget (its `mac` is checked, never ignored); got none.');
  }
  return restoreBudgetWith(json);
}

/**
 * The budget's JSON (as toJSON writes it) with `mac`, an HMAC-SHA256 of the rest under a key the
 * caller holds: restoreBudget with that key refuses the JSON if anything in it was changed, a
 * release deleted or edited, or the budget raised. The key never leaves the caller, and nothing
 * of it is in the JSON.
 *
 * @example
 * ```ts
 * import { createBudget, restoreBudget, signBudget } from 'dpnoise';
 *
 * const key = 'a secret of at least 16 characters';
 * const signed = signBudget(createBudget({ epsilon: 1, delta: 1e-6 }), { key });
 * console.log(restoreBudget(signed, { key }).total.epsilon); // 1
 * ```
 *
 * @group Accounting
 */
export function signBudget(budget: PrivacyBudget, options: BudgetKey): BudgetJson {
  const json = readBudgetArgument(budget).toJSON();
  return { ...json, mac: macOf(json, keyBytes(options)) };
}

/** The JSON without its `mac`, once the MAC is checked against the key; else a TypeError that shows neither. */
function verified(json: BudgetJson, key: Uint8Array): BudgetJson {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new TypeError(`dpnoise: \`json\` must be a budget saved by signBudget; got ${describe(json)}.`);
  const { mac, ...rest } = json as BudgetJson & Record<string, unknown>;
  const expected = new TextEncoder().encode(macOf(rest, key));
  if (typeof mac !== 'string' || !sameBytes(new TextEncoder().encode(mac), expected)) {
    throw new TypeError(
      'dpnoise: `json.mac` must be the MAC of the budget under `options.key`; got one that does not match: the budget was changed since it was signed, or signed under another key.',
    );
  }
  return rest as BudgetJson;
}

/**
 * restoreBudget, whose `spend` first hands `onSpend` the budget's JSON with the release (not
 * exported by the package). The command line saves its budget file there: aggregate() spends
 * inside, just before it reads the rows, and accepts only budgets made here (readBudgetArgument),
 * so a wrapper around the budget could not save the charge at that moment.
 */
export function restoreBudgetWith(json: BudgetJson, onSpend?: OnSpend): PrivacyBudget {
  const o = readOptions('json', json, ['format', 'version', 'epsilon', 'delta', 'releases']);
  if (o.format !== 'dpnoise-budget' || o.version !== 1) {
    throw new TypeError(
      `dpnoise: \`json\` must be a budget saved by toJSON (format 'dpnoise-budget', version 1); got format ${describe(o.format)}, version ${describe(o.version)}.`,
    );
  }
  if (!Array.isArray(o.releases)) throw new TypeError(`dpnoise: \`json.releases\` must be an array of events; got ${describe(o.releases)}.`);
  const target = readLedgerTarget({ epsilon: o.epsilon, delta: o.delta });
  return makeBudget(
    target,
    (o.releases as unknown[]).map((e, i) => readEvent(e, `json.releases[${i}]`)),
    onSpend,
  );
}
