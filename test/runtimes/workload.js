// The same small workload in every runtime: calibrate, then seeded noise. Its JSON result must be
// identical everywhere (test/runtimes/*.test.ts compare it with Node's).
export function workload(dpnoise) {
  const { calibrateGaussian, calibrateLaplace, correlatedSum, createRng, gaussianMechanism, gaussianNoise, gaussianNoiseInto, laplaceNoise, wasmVector } =
    dpnoise;
  const sensitivity = [0.5, 1, 2, 4, 0];
  const g = calibrateGaussian({ sensitivity, epsilon: 0.5, delta: 1e-6 });
  const l = calibrateLaplace({ sensitivity, epsilon: 0.5 });
  const rng = createRng({ seed: 'every runtime' });
  return {
    mu: g.mu,
    gaussianScales: Array.from(g.scales),
    laplaceScales: Array.from(l.scales),
    gaussian: Array.from(gaussianNoise(20000, g.scales[0], { rng })).slice(-8),
    laplace: Array.from(laplaceNoise(9, 1, { rng })),
    correlated: Array.from(correlatedSum({ dimension: 4, rho: 1 }).release([1, 2, 3, 4], 10, { rng }).sums),
    csprngFinite: gaussianNoise(1000, 1).every(Number.isFinite),
    inPlace: (() => {
      // Noise drawn into a vector in the module's memory (wasmVector), freed at once.
      const v = wasmVector(20000);
      gaussianNoiseInto(v, 1.5, { rng: createRng({ seed: 'in place' }) });
      const tail = Array.from(v.values.slice(-4));
      v.free();
      return tail;
    })(),
    // Grid-mode calibration goes through the zCDP conversion: the same figures on every engine
    // (with the engines' own exp and log1p, 9 in 300 such mechanisms differed between two of them).
    grid: Array.from({ length: 60 }, (_, k) => {
      const epsilon = (k + 1) / 12; // basic arithmetic: the inputs themselves are the same on every engine
      const delta = [1e-5, 1e-8, 1e-12][k % 3];
      const m = gaussianMechanism({ sensitivity, epsilon, delta });
      return [m.grid, ...m.scales, m.privacy.rho, m.privacy.epsilon(delta), m.privacy.delta(epsilon / 2)];
    }),
  };
}

/**
 * What a runtime started as a process prints (run.mjs, run.cjs): the workload, and whether two
 * worker threads draw exactly the single-thread noise under one seed.
 */
export async function report(dpnoise) {
  const { createRng, gaussianNoise, gaussianNoiseParallel } = dpnoise;
  const seed = 'parallel in every runtime';
  const parallel = await gaussianNoiseParallel(200_000, 1, { rng: createRng({ seed }), threads: 2 });
  const single = gaussianNoise(200_000, 1, { rng: createRng({ seed }) });
  return { workload: workload(dpnoise), parallelEqual: parallel.length === single.length && parallel.every((x, i) => x === single[i]) };
}
