// The demo's computations, in a Web Worker with dpnoise's WebAssembly build.
import * as dpnoise from '/dist/index.js';

const ready = dpnoise.init();

const SHAPES = {
  uniform: () => 1,
  linear: (i) => i,
  quadratic: (i) => i * i,
  exponential: (i, K) => Math.exp(i - K), // e^i, scaled so that e^K does not overflow
  'one-hot': (i) => (i === 1 ? 1 : 0),
};

/** The profile: the pasted `values` as they are (the user's units), or a shape over K coordinates scaled to ||lambda||_2 = 1 as in the papers' figures. */
function profileOf({ profile, K, values }) {
  if (profile === 'csv') return values;
  const raw = Array.from({ length: K }, (_, k) => SHAPES[profile](k + 1, K));
  const norm = Math.hypot(...raw);
  return raw.map((x) => x / norm);
}

function figures(sensitivity, epsilon, delta) {
  const rows = [];
  for (const allocation of ['iid', 'spr', 'optimal']) {
    rows.push({ noise: 'Gaussian', allocation, ...pick(dpnoise.calibrateGaussian({ sensitivity, epsilon, delta, allocation })) });
    rows.push({ noise: 'Laplace', allocation, ...pick(dpnoise.calibrateLaplace({ sensitivity, epsilon, allocation })) });
  }
  // The staircase (pure epsilon, like Laplace): its MSE, and its gain over Laplace iid (the same
  // baseline as the Laplace rows); it has budgets and shapes, not scales.
  const mse = dpnoise.calibrateStaircase({ sensitivity, epsilon, errorPower: 2 }).error;
  rows.push({ noise: 'Staircase', allocation: 'optimal', mse, gain: rows[1].mse / mse });
  return rows;
}

const pick = (c) => ({ mse: c.mse, gain: c.gain, scales: Array.from(c.scales) });

function histogram(values, bins, lo, hi) {
  const counts = new Array(bins).fill(0);
  const width = (hi - lo) / bins;
  for (const x of values) if (x >= lo && x < hi) counts[Math.floor((x - lo) / width)]++;
  return { centres: counts.map((_, b) => lo + (b + 0.5) * width), density: counts.map((c) => c / (values.length * width)) };
}

async function compute(inputs) {
  await ready;
  const { epsilon, delta } = inputs;
  const sensitivity = profileOf(inputs);
  const epsilons = Array.from({ length: 40 }, (_, k) => 0.05 * 1.15 ** k);
  const Ks = [1, 2, 3, 5, 8, 12, 20, 30, 50, 80, 120, 200]; // e^i stays within the sensitivity domain (2^-400)
  const mseOver = (list, make) =>
    ['Gaussian', 'Laplace'].flatMap((noise) =>
      ['iid', 'optimal'].map((allocation) =>
        list.map((x) => {
          const { sensitivity: s, epsilon: e } = make(x);
          return noise === 'Gaussian'
            ? dpnoise.calibrateGaussian({ sensitivity: s, epsilon: e, delta, allocation }).mse
            : dpnoise.calibrateLaplace({ sensitivity: s, epsilon: e, allocation }).mse;
        }),
      ),
    );
  const staircaseEpsilon = epsilons.map((e) => dpnoise.calibrateStaircase({ sensitivity, epsilon: e, errorPower: 2 }).error);
  const noise = dpnoise.gaussianNoise(100_000, 1);
  const laplace = dpnoise.laplaceNoise(100_000, 1 / Math.SQRT2);
  const dims = Array.from({ length: 25 }, (_, k) => Math.round(10 ** (k / 4)));
  return {
    gini: dpnoise.gini(sensitivity),
    K: sensitivity.length,
    figures: figures(sensitivity, epsilon, delta),
    epsilons,
    mseEpsilon: [...mseOver(epsilons, (e) => ({ sensitivity, epsilon: e })), staircaseEpsilon],
    Ks: inputs.profile === 'csv' ? [] : Ks,
    mseK: inputs.profile === 'csv' ? [] : mseOver(Ks, (K) => ({ sensitivity: profileOf({ ...inputs, K }), epsilon })),
    histogram: { gaussian: histogram(noise, 80, -5, 5), laplace: histogram(laplace, 80, -5, 5) },
    correlated: { dims, gain: dims.map((d) => dpnoise.correlatedSum({ dimension: d, epsilon, delta }).gain) },
  };
}

self.onmessage = async (event) => {
  try {
    self.postMessage({ id: event.data.id, result: await compute(event.data.inputs) });
  } catch (error) {
    self.postMessage({ id: event.data.id, error: error.message });
  }
};
