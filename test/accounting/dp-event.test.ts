import { describe, expect, it } from 'vitest';
import { readDpEvent, writeDpEvent } from '../../src/accounting/dp-event.js';
import { fixture } from '../helpers.js';

const { cases } = fixture<{ cases: { id: string; event?: Record<string, unknown> }[] }>('accounting.json');
const events = cases.flatMap((c) => (c.event ? [[c.id, c.event] as const] : []));

describe('DpEvent JSON', () => {
  it.each(events)('%s: read, written and read again, the same event; written as dp_accounting wrote it', (_, json) => {
    const event = readDpEvent(json);
    expect(readDpEvent(writeDpEvent(event))).toEqual(event);
    expect(writeDpEvent(event)).toEqual(json);
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
