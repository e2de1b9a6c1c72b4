import { describe, expect, it } from 'vitest';
import { readDpEvent, writeDpEvent } from '../../src/accounting/dp-event.js';
import { fixture } from '../helpers.js';

const { cases } = fixture<{ cases: { id: string; event?: Record<string, unknown> }[] }>('accounting.json');
const events = cases.flatMap((c) => (c.event ? [[c.id, c.event] as const] : []));

/**
 * Whether `written` is `json` with its noise rounded to the safe side by at most `ulps` roundings:
 * noise multipliers never larger, discrete Laplace's noise parameter (1/scale) never smaller, each
 * within 2^-49 per rounding; every other field equal.
 */
function safelyEqual(written: unknown, json: unknown, ulps: number): boolean {
  if (typeof json !== 'object' || json === null) return written === json;
  if (typeof written !== 'object' || written === null) return false;
  const [w, j] = [written as Record<string, unknown>, json as Record<string, unknown>];
  if (Object.keys(w).sort().join() !== Object.keys(j).sort().join()) return false;
  return Object.keys(j).every((key) => {
    const [a, b] = [w[key], j[key]];
    const slack = ulps * 2 ** -49 * Math.abs(b as number);
    if (key === 'noise_multiplier') return (a as number) <= (b as number) && (a as number) >= (b as number) - slack;
    if (key === 'noise_parameter') return (a as number) >= (b as number) && (a as number) <= (b as number) + slack;
    return safelyEqual(a, b, ulps);
  });
}

describe('DpEvent JSON', () => {
  it.each(events)('%s: written as dp_accounting wrote it, the noise rounded to the safe side, and again after a second round trip', (_, json) => {
    const written = writeDpEvent(readDpEvent(json));
    expect(safelyEqual(written, json, 1)).toBe(true);
    expect(safelyEqual(writeDpEvent(readDpEvent(written)), json, 2)).toBe(true);
  });

  it('the comparison has power: a larger noise multiplier, a changed count, or a missing field fail it', () => {
    const json = { class_name: 'SelfComposedDpEvent', count: 3, event: { class_name: 'GaussianDpEvent', noise_multiplier: 1 } };
    expect(safelyEqual(json, json, 1)).toBe(true);
    expect(safelyEqual({ ...json, event: { ...json.event, noise_multiplier: 1 + 2 ** -52 } }, json, 1)).toBe(false);
    expect(safelyEqual({ ...json, event: { ...json.event, noise_multiplier: 1 - 2 ** -40 } }, json, 1)).toBe(false);
    expect(safelyEqual({ ...json, count: 4 }, json, 1)).toBe(false);
    expect(safelyEqual({ class_name: 'SelfComposedDpEvent', count: 3 }, json, 1)).toBe(false);
  });

  it('reads every class the fixtures use (Gaussian, Laplace, discrete, sampled, composed)', () => {
    const classes = new Set<string>();
    const walk = (j: Record<string, unknown>) => {
      classes.add(String(j.class_name));
      if (j.event) walk(j.event as Record<string, unknown>);
      if (Array.isArray(j.events)) for (const e of j.events) walk(e);
    };
    for (const [, json] of events) walk(json);
    expect([...classes].sort()).toEqual([
      'ComposedDpEvent',
      'DiscreteGaussianDpEvent',
      'DiscreteLaplaceDpEvent',
      'GaussianDpEvent',
      'LaplaceDpEvent',
      'PoissonSampledDpEvent',
      'SampledWithoutReplacementDpEvent',
      'SelfComposedDpEvent',
    ]);
  });

  it('refuses what it cannot account for, naming the field', () => {
    const gaussian = { class_name: 'GaussianDpEvent', noise_multiplier: 1 };
    expect(() => readDpEvent(null)).toThrow(/`event` must be a DpEvent as JSON/);
    expect(() => readDpEvent({ class_name: 'GaussianDpEvent' })).toThrow(TypeError);
    expect(() => readDpEvent({ class_name: 'GaussianDpEvent', noise_multiplier: 0 })).toThrow(/`event.noise_multiplier` must be/);
    expect(() => readDpEvent({ class_name: 'PoissonSampledDpEvent', sampling_probability: 1.5, event: gaussian })).toThrow(RangeError);
    expect(() => readDpEvent({ class_name: 'SelfComposedDpEvent', count: 2, event: { class_name: 'RandomizedResponseDpEvent' } })).toThrow(
      /`event.event` is a DpEvent dpnoise does not account for/,
    );
    expect(() => readDpEvent({ class_name: 'NonPrivateDpEvent' })).toThrow(TypeError);
    expect(() => readDpEvent({ class_name: 'SampledWithoutReplacementDpEvent', source_dataset_size: 10, sample_size: 11, event: gaussian })).toThrow(
      /`event.sample_size`/,
    );
    // A field inherited from a polluted prototype is not the event's own.
    expect(() => readDpEvent(Object.assign(Object.create({ noise_multiplier: 1 }), { class_name: 'GaussianDpEvent' }))).toThrow(
      /has no field `noise_multiplier`/,
    );
  });

  it('privacy known only by its parameter (pure epsilon, rho) has no DpEvent', () => {
    expect(() => writeDpEvent({ type: 'zcdp', rho: 1 })).toThrow(/rho-zCDP/);
    expect(() => writeDpEvent({ type: 'pure', epsilon: 1 })).toThrow(/pure epsilon-DP/);
  });
});

describe('DpEvent JSON: what a careless or hostile caller may send', () => {
  const gaussian = { class_name: 'GaussianDpEvent', noise_multiplier: 1 };

  it('refuses a field dpnoise would ignore (a sensitivity on a Gaussian event would under-report the loss)', () => {
    expect(() => readDpEvent({ ...gaussian, sensitivity: 5 })).toThrow(/has a field `sensitivity` dpnoise does not read; it takes `noise_multiplier`/);
    expect(() => readDpEvent({ class_name: 'NoOpDpEvent', count: 3 })).toThrow(/has a field `count`/);
    expect(readDpEvent({ module_name: 'dp_accounting.dp_event', ...gaussian })).toEqual({ type: 'gaussian', mu: 1 * (1 + 2 ** -50) });
  });

  it("refuses dimension null (dp_accounting's 'unknown') with the reason, and reads class_name as an own field only", () => {
    expect(() => readDpEvent({ class_name: 'DiscreteGaussianDpEvent', sigma: 1, sensitivity: 1, dimension: null })).toThrow(/dimension` is null \(unknown\)/);
    expect(() => readDpEvent(Object.assign(Object.create({ class_name: 'GaussianDpEvent' }), { noise_multiplier: 1 }))).toThrow(/does not account for/);
  });

  it('refuses events nested deeper than 100 (or referring to themselves) with a clear error, not a stack overflow', () => {
    let deep: Record<string, unknown> = gaussian;
    for (let i = 0; i < 200; i++) deep = { class_name: 'SelfComposedDpEvent', count: 1, event: deep };
    expect(() => readDpEvent(deep)).toThrow(/nests events more than 100 deep/);
    const cyclic: Record<string, unknown> = { class_name: 'SelfComposedDpEvent', count: 1 };
    cyclic.event = cyclic;
    expect(() => readDpEvent(cyclic)).toThrow(RangeError);
  });
});
