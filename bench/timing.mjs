// The one timing helper every benchmark group uses.
//
// measure(fn) calls `fn()` repeatedly: first a warm-up (so V8 and the WebAssembly tiers have
// optimised the code; it also estimates the cost of a call), then `batches` timed batches of the
// same number of calls, sized so that all batches together take about `seconds`. It reports the
// median over the batches of the time per unit of work (`units` units per call of fn, e.g. the
// number of coordinates written).
//
// measureEach([fn1, fn2, ...]) does the same for several functions that are to be compared, with
// their batches interleaved round-robin (batch 1 of each, then batch 2 of each, ...). Whatever
// drifts during a run - the state of malloc and of the kernel's page cache for large arrays, GC
// pressure, CPU frequency - then affects every compared function alike, so ratios are stable
// even when absolute times are bimodal (fresh 8 MB+ arrays are sometimes page-faulted in anew,
// sometimes reused).
//
// fn should return a value that depends on its work (a number, or an array whose first element
// is read); the values are folded into a sink so the engine cannot drop the work as dead code.
import { performance } from 'node:perf_hooks';

let sink = 0;

/** Folds a result into the sink (cheap; keeps the work observable). */
function consume(value) {
  if (typeof value === 'number') sink += value;
  else if (value && typeof value.length === 'number') sink += value.length + (value[0] ?? 0);
  else if (value && typeof value === 'object') sink += 1;
}

/** The sink's value: print or check it once so it stays live. */
export function sinkValue() {
  return sink;
}

function median(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

/**
 * Times several functions with interleaved batches. Options (shared by all functions):
 *   units    work units per call of fn (the result is seconds per unit); default 1
 *   seconds  time for the timed batches of EACH function; default 0.5
 *   batches  number of timed batches per function (the median is reported); default 7
 *   warmup   seconds of untimed warm-up calls per function (at least 2 calls); default 0.15
 * Returns, per function, { perUnit, min, max, batches, callsPerBatch, spread } with times in
 * seconds per unit; spread = (max - min) / median over the batches, a rough noise indicator.
 */
export function measureEach(fns, { units = 1, seconds = 0.5, batches = 7, warmup = 0.15 } = {}) {
  const plans = fns.map((fn) => {
    let calls = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      consume(fn());
      calls++;
      elapsed = (performance.now() - start) / 1e3;
    } while (calls < 2 || elapsed < warmup);
    return { fn, calls: Math.max(1, Math.round((seconds / batches) * (calls / elapsed))), samples: [] };
  });
  for (let b = 0; b < batches; b++) {
    for (let k = 0; k < plans.length; k++) {
      const plan = plans[(b + k) % plans.length]; // rotate the order, so no function always follows another
      const start = performance.now();
      for (let i = 0; i < plan.calls; i++) consume(plan.fn());
      plan.samples.push((performance.now() - start) / 1e3 / plan.calls / units);
    }
  }
  return plans.map(({ calls, samples }) => {
    samples.sort((x, y) => x - y);
    const mid = median(samples);
    return {
      perUnit: mid,
      min: samples[0],
      max: samples[samples.length - 1],
      batches,
      callsPerBatch: calls,
      spread: (samples[samples.length - 1] - samples[0]) / mid,
    };
  });
}

/** Times one function (see measureEach). */
export function measure(fn, options) {
  return measureEach([fn], options)[0];
}
