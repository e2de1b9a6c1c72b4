// dp_accounting's DpEvent in JSON (the `to_named_tuple()` form: objects with `module_name`,
// `class_name` and the event's fields), read into dpnoise's events and written from them, so that
// an accounting can move between dp_accounting and dpnoise and be checked on either side.
import { describe, integerIn, numberIn } from '../core/validate.js';
import { roundUp } from '../core/rounding.js';
import type { Event } from '../engine/events.js';

/**
 * dp_accounting's DpEvent as JSON: its `to_named_tuple()` form, an object with `class_name`
 * (`GaussianDpEvent`, `PoissonSampledDpEvent`, `ComposedDpEvent`, ...) and the event's fields.
 *
 * @group Accounting
 */
export interface DpEventJson {
  /** The event's class in dp_accounting, e.g. 'GaussianDpEvent'. */
  readonly class_name: string;
  readonly [field: string]: unknown;
}

const MODULE = 'dp_accounting.dp_event';

function field(json: Record<string, unknown>, name: string, where: string): unknown {
  if (!Object.hasOwn(json, name)) throw new TypeError(`dpnoise: \`${where}\` (a ${String(json.class_name)}) has no field \`${name}\`.`);
  return json[name];
}

/** A noise multiplier: sigma / sensitivity, > 0 (0 would be no noise at all). */
const MULTIPLIER = { min: 0, max: Number.MAX_VALUE, minOpen: true };
const RATE = { min: 0, max: 1, minOpen: true };

/**
 * The fields of each class dpnoise reads (besides `module_name` and `class_name`): any other is
 * refused, so that a field dpnoise would ignore (a sensitivity on a Gaussian event, say) cannot
 * make a release look more private than it is.
 */
const FIELDS: Record<string, readonly string[]> = {
  GaussianDpEvent: ['noise_multiplier'],
  LaplaceDpEvent: ['noise_multiplier'],
  DiscreteLaplaceDpEvent: ['noise_parameter', 'sensitivity'],
  DiscreteGaussianDpEvent: ['sigma', 'sensitivity', 'dimension'],
  PoissonSampledDpEvent: ['sampling_probability', 'event'],
  SampledWithoutReplacementDpEvent: ['source_dataset_size', 'sample_size', 'event'],
  RandomAllocationDpEvent: ['event', 'num_selected', 'num_steps'],
  SelfComposedDpEvent: ['event', 'count'],
  ComposedDpEvent: ['events'],
  NoOpDpEvent: [],
};
/** How deep events may nest (dp_accounting's own trees are a few levels deep). */
const MAX_DEPTH = 100;

/** dpnoise's event for a DpEvent JSON value (`where` names it in errors). */
export function readDpEvent(json: unknown, where = 'event', depth = 0): Event {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new TypeError(`dpnoise: \`${where}\` must be a DpEvent as JSON (an object with \`class_name\`); got ${describe(json)}.`);
  }
  if (depth > MAX_DEPTH) throw new RangeError(`dpnoise: \`${where}\` nests events more than ${MAX_DEPTH} deep (or refers to itself).`);
  const o = json as Record<string, unknown>;
  const name = Object.hasOwn(o, 'class_name') ? o.class_name : undefined;
  const known = typeof name === 'string' && Object.hasOwn(FIELDS, name) ? FIELDS[name]! : undefined;
  if (known) {
    const extra = Object.keys(o).find((k) => k !== 'module_name' && k !== 'class_name' && !known.includes(k));
    if (extra !== undefined) {
      throw new TypeError(
        `dpnoise: \`${where}\` (a ${name}) has a field \`${extra}\` dpnoise does not read; it takes ${known.map((k) => `\`${k}\``).join(', ') || 'none'}.`,
      );
    }
  }
  const get = (f: string) => field(o, f, where);
  const child = (json: unknown, at: string) => readDpEvent(json, at, depth + 1);
  switch (name) {
    case 'GaussianDpEvent':
      return { type: 'gaussian', mu: roundUp(1 / numberIn(`${where}.noise_multiplier`, get('noise_multiplier'), MULTIPLIER)) };
    case 'LaplaceDpEvent':
      return { type: 'laplace', epsilon: roundUp(1 / numberIn(`${where}.noise_multiplier`, get('noise_multiplier'), MULTIPLIER)) };
    case 'DiscreteLaplaceDpEvent':
      return {
        type: 'discrete-laplace',
        // The scale rounded down past the division's rounding (a smaller scale is less private).
        scale: (1 / numberIn(`${where}.noise_parameter`, get('noise_parameter'), MULTIPLIER)) * (1 - 2 ** -50),
        sensitivity: integerIn(`${where}.sensitivity`, get('sensitivity'), { min: 1, max: 2 ** 40 }),
      };
    case 'DiscreteGaussianDpEvent': {
      if (o.dimension === null) {
        throw new RangeError(
          `dpnoise: \`${where}.dimension\` is null (unknown): dpnoise accounts the discrete Gaussian of one coordinate only; give \`dimension: 1\` if that is what was released.`,
        );
      }
      if (Object.hasOwn(o, 'dimension')) integerIn(`${where}.dimension`, o.dimension, { min: 1, max: 1 }); // one coordinate
      const sigma = numberIn(`${where}.sigma`, get('sigma'), MULTIPLIER);
      return {
        type: 'discrete-gaussian',
        variance: sigma * sigma,
        sensitivity: integerIn(`${where}.sensitivity`, get('sensitivity'), { min: 1, max: 2 ** 40 }),
      };
    }
    case 'PoissonSampledDpEvent':
      return {
        type: 'poisson',
        rate: numberIn(`${where}.sampling_probability`, get('sampling_probability'), RATE),
        event: child(get('event'), `${where}.event`),
      };
    case 'SampledWithoutReplacementDpEvent': {
      const population = integerIn(`${where}.source_dataset_size`, get('source_dataset_size'), { min: 1, max: Number.MAX_SAFE_INTEGER });
      const size = integerIn(`${where}.sample_size`, get('sample_size'), { min: 1, max: population });
      return { type: 'without-replacement', size, population, event: child(get('event'), `${where}.event`) };
    }
    case 'RandomAllocationDpEvent': {
      const steps = integerIn(`${where}.num_steps`, get('num_steps'), { min: 1, max: Number.MAX_SAFE_INTEGER });
      const selected = integerIn(`${where}.num_selected`, get('num_selected'), { min: 0, max: steps });
      if (selected > 1) {
        throw new RangeError(
          `dpnoise: \`${where}.num_selected\` is ${selected}: dpnoise accounts random allocation to one step of each record (num_selected 1) only.`,
        );
      }
      const event = child(get('event'), `${where}.event`);
      if (selected === 0) return { type: 'composed', events: [] };
      return steps === 1 ? event : { type: 'allocation', steps, event };
    }
    case 'SelfComposedDpEvent':
      return {
        type: 'composed',
        events: [[child(get('event'), `${where}.event`), integerIn(`${where}.count`, get('count'), { min: 0, max: Number.MAX_SAFE_INTEGER })]],
      };
    case 'ComposedDpEvent': {
      const events = get('events');
      if (!Array.isArray(events)) throw new TypeError(`dpnoise: \`${where}.events\` must be an array of DpEvents; got ${describe(events)}.`);
      return { type: 'composed', events: events.map((e, i) => [child(e, `${where}.events[${i}]`), 1] as const) };
    }
    case 'NoOpDpEvent':
      return { type: 'composed', events: [] };
    default:
      throw new TypeError(
        `dpnoise: \`${where}\` is a DpEvent dpnoise does not account for (${describe(name)}); it takes Gaussian, Laplace, DiscreteGaussian, DiscreteLaplace, PoissonSampled, SampledWithoutReplacement, RandomAllocation (one step per record), SelfComposed, Composed and NoOp events.`,
      );
  }
}

const tuple = (class_name: string, fields: Record<string, unknown>): DpEventJson => ({ module_name: MODULE, class_name, ...fields });

/** The DpEvent JSON of one of dpnoise's events (the events dp_accounting has). */
export function writeDpEvent(event: Event): DpEventJson {
  switch (event.type) {
    case 'gaussian':
      return tuple('GaussianDpEvent', { noise_multiplier: 1 / event.mu });
    case 'laplace':
      return tuple('LaplaceDpEvent', { noise_multiplier: 1 / event.epsilon });
    case 'discrete-laplace':
      return tuple('DiscreteLaplaceDpEvent', { noise_parameter: 1 / event.scale, sensitivity: event.sensitivity });
    case 'discrete-gaussian':
      return tuple('DiscreteGaussianDpEvent', { sigma: Math.sqrt(event.variance), sensitivity: event.sensitivity, dimension: 1 });
    case 'poisson':
      return tuple('PoissonSampledDpEvent', { sampling_probability: event.rate, event: writeDpEvent(event.event) });
    case 'allocation':
      return tuple('RandomAllocationDpEvent', { event: writeDpEvent(event.event), num_selected: 1, num_steps: event.steps });
    case 'without-replacement':
      return tuple('SampledWithoutReplacementDpEvent', { source_dataset_size: event.population, sample_size: event.size, event: writeDpEvent(event.event) });
    case 'composed':
      if (event.events.length === 0) return tuple('NoOpDpEvent', {});
      if (event.events.length === 1) return tuple('SelfComposedDpEvent', { event: writeDpEvent(event.events[0]![0]), count: event.events[0]![1] });
      return tuple('ComposedDpEvent', {
        events: event.events.map(([e, times]) => (times === 1 ? writeDpEvent(e) : tuple('SelfComposedDpEvent', { event: writeDpEvent(e), count: times }))),
      });
    case 'close':
      return writeDpEvent(event.fallback);
    case 'thresholded':
      throw new TypeError(
        'dpnoise: this privacy object includes a partition selection (keys released above a noisy threshold), which has no DpEvent in dp_accounting.',
      );
    case 'pure':
    case 'zcdp':
      throw new TypeError(
        `dpnoise: this privacy object accounts for ${event.type === 'pure' ? 'pure epsilon-DP' : 'rho-zCDP'} known only by its parameter, which has no DpEvent in dp_accounting.`,
      );
  }
}
