// Benchmark group "Random allocation": randomAllocation's epsilon and certified range, timed on new
// objects, next to Poisson batches at the rate that draws the same expected batch (1/t), for the
// same steps. No released Python accountant computes random allocation, so dpnoise runs alone here;
// docs/accounting.md, "Random allocation" compares its figures with the implementation proposed
// for dp_accounting.
import { compose, gaussianPrivacy, randomAllocation, subsample } from 'dpnoise';
import { fmt } from './format.mjs';

export const title = 'Random allocation';

const DELTA = 1e-5;
/** Noise multiplier z, steps per epoch t, epochs. */
const CASES = [
  [2, 10, 1],
  [2, 10, 3],
  [2, 1000, 1],
  [1, 10, 1],
  [1, 100, 1],
  [0.6, 10, 1], // only narrower tails fit the grid (docs/accounting.md, "Random allocation")
];

/** Seconds of one call, and its value. */
function once(fn) {
  const start = performance.now();
  const value = fn();
  return [(performance.now() - start) / 1e3, value];
}

const release = (z) => gaussianPrivacy({ scales: z, sensitivity: [1] });
const allocated = (z, t, epochs) => compose([{ privacy: randomAllocation(release(z), { steps: t }), times: epochs }]);
const poisson = (z, t, epochs) => compose([{ privacy: subsample(release(z), { rate: 1 / t }), times: t * epochs }]);

export async function run(ctx) {
  allocated(2, 10, 1).epsilon(DELTA); // warm-up
  const rows = [];
  for (const [z, t, epochs] of CASES) {
    ctx.log(`  z ${z}, ${t} steps, ${epochs} epoch(s) ...`);
    const [epsilonS, epsilon] = once(() => allocated(z, t, epochs).epsilon(DELTA));
    const [boundsS, range] = once(() => allocated(z, t, epochs).bounds(DELTA));
    const [poissonS, poissonEpsilon] = once(() => poisson(z, t, epochs).epsilon(DELTA));
    ctx.check(range.lower <= epsilon && epsilon <= range.upper * (1 + 1e-12), `randomAllocation's epsilon for z ${z}, t ${t} is outside its certified range`);
    rows.push([
      String(z),
      String(t),
      String(epochs),
      epsilon.toPrecision(5),
      `[${range.lower.toPrecision(5)}, ${range.upper.toPrecision(5)}]`,
      fmt(epsilonS),
      fmt(boundsS),
      poissonEpsilon.toPrecision(5),
      fmt(poissonS),
    ]);
  }
  return [
    {
      heading: 'randomAllocation: epsilon at delta = 1e-5 and seconds per call',
      text:
        'Each record in exactly one of t Gaussian steps (noise multiplier z, sensitivity 1, add/remove neighbours), composed over the epochs: ' +
        'randomAllocation(gaussianPrivacy(...), { steps: t }) composed with { privacy, times: epochs }, a new object per call (each caches its distributions), ' +
        'timed once after one warm-up case. *Poisson*: the same steps on Poisson batches at rate 1/t (subsample, t x epochs steps), for comparison.',
      columns: ['z', 'steps t', 'epochs', 'epsilon', 'certified range', 'epsilon s', 'bounds s', 'Poisson epsilon', 'Poisson s'],
      rows,
    },
  ];
}
