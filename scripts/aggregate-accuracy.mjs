// The README's accuracy tables for dpnoise/aggregate: the mean relative error |released - true| /
// |true| of each statistic (over groups and 1000 seeded repetitions) at epsilon 1, delta 1e-6,
// for aggregate's default (it chooses the noise by predicted error), forced Gaussian and forced
// Laplace, against the same release vector with other noise and against diffprivlib's tools (one
// mechanism per statistic, scripts/aggregate_accuracy_diffprivlib.py), on scikit-learn's diabetes
// data (examples/data/diabetes.csv) and on 1e7 synthetic rows. Run after `npm run build`:
//   python3 scripts/aggregate_accuracy_diffprivlib.py --json /tmp/diffprivlib.json
//   node scripts/aggregate-accuracy.mjs /tmp/diffprivlib.json   (about 20 s; without the JSON, no diffprivlib rows)
//
// The simulation: the plan aggregate makes (planOf, from public inputs only: layout, family,
// block sensitivities, one mechanism for one group's vector), its exact release vector built here
// by the engines' rule (each clipped value less its shift rounded to the sum's quantum), group
// after group, the plan's own mechanism drawn group by group from one rng with the same seeds (as
// noised in src/aggregate/plan.ts), and the statistics derived as src/aggregate/estimates.ts does.
// On the diabetes data it is checked to give aggregate's own releases bit for bit; the 1e7 rows
// use it alone.
import { readFileSync } from 'node:fs';
import { diabetesRows as readDiabetesRows } from './diabetes.mjs';
import { createBudget, createRng, gaussianMechanism, laplaceMechanism } from 'dpnoise';
import { aggregate } from 'dpnoise/aggregate';
import { layoutOf } from '../dist/aggregate/layout.js';
import { noised, planOf, readAggregateTarget, releaseVector } from '../dist/aggregate/plan.js';
import { objectReader } from '../dist/aggregate/columnar.js';
import { rowTotals } from '../dist/aggregate/rows.js';
import { readSpec } from '../dist/aggregate/spec.js';
import { quantaOf, quantumOf, sumQuantum } from '../dist/aggregate/totals.js';

const REPS = 1000;
const PRIVACY = { epsilon: 1, delta: 1e-6 };
const TARGET = readAggregateTarget(PRIVACY);
/** aggregate's own choice, and each noise forced (`noise` in the spec). */
const VARIANTS = [{ noise: undefined }, { noise: 'gaussian' }, { noise: 'laplace' }];
const FAMILY = { gaussian: 'Gaussian', laplace: 'Laplace' };
const peer = process.argv[2] === undefined ? undefined : JSON.parse(readFileSync(process.argv[2], 'utf8'));

/** The statistics of a spec with a count and means, in the order aggregate's rows name them. */
const statisticsOf = (spec) => ['count', ...Object.keys(spec.mean).map((c) => `mean(${c})`)];
const withNoise = (spec, noise) => (noise === undefined ? spec : { ...spec, noise });
const planFor = (spec, noise) => planOf(readSpec({ ...withNoise(spec, noise), table: [] }), TARGET);
/** What a plan's release spends, as the table's privacy column says it. */
const privacyOf = (family) => (family === 'gaussian' ? '(1, 1e-6), Gaussian' : 'epsilon 1 (pure), Laplace');
const clamp = (x, lower, upper) => Math.min(upper, Math.max(lower, x));
const midpoint = ([lower, upper]) => (lower + upper) / 2;

/** A sum measure's key in a data set's quanta: its column and shift (a mean's midpoint, or 0 for a plain sum). */
const keyOf = (column, shift) => `${column}@${shift}`;

/** The quantum and the term in quanta of one value for a column's sum with a shift (src/aggregate/totals.js). */
function termOf(bounds, shift) {
  const q = sumQuantum({ kind: 'sum', lower: bounds[0], upper: bounds[1], shift });
  return { q, quanta: (x) => quantaOf(clamp(x, bounds[0], bounds[1]), shift, q) };
}

/**
 * The exact release vector of a layout (counts and sums only), group after group, each group's
 * vector one coordinate per block (so block k of group g is at g * L + k, L the number of blocks):
 * the engines' totals, each sum its integer number of quanta times the quantum.
 */
function exactVector(layout, data) {
  const G = data.count.length;
  const L = layout.blocks.length;
  const out = new Float64Array(G * L);
  layout.blocks.forEach((block, k) => {
    const m = layout.measures[block.measure];
    if (block.size !== 1 || (m.kind !== 'count' && m.kind !== 'sum')) throw new Error(`unexpected block ${JSON.stringify(m)}`);
    const q = m.kind === 'sum' ? sumQuantum(m) : 1;
    const cells = m.kind === 'count' ? data.count : data.quanta[keyOf(m.column, m.shift)];
    if (cells === undefined) throw new Error(`no totals for ${JSON.stringify(m)}`);
    for (let g = 0; g < G; g++) out[g * L + k] = cells[g] * q;
  });
  return out;
}

/** The count and means from a noisy group-major vector as estimates.ts derives them: shift + sum / max(1, count), clamped to the bounds. */
function derive(noisy, layout, spec) {
  const G = spec.groups.length;
  const L = layout.blocks.length;
  const blockOfMeasure = (i) => layout.blocks.findIndex((b) => b.measure === i);
  const count = blockOfMeasure(layout.measures.findIndex((m) => m.kind === 'count'));
  const out = { count: Float64Array.from({ length: G }, (_, g) => noisy[g * L + count]) };
  for (const [c, bounds] of Object.entries(spec.mean)) {
    const i = layout.measures.findIndex((m) => m.kind === 'sum' && m.column === c);
    const k = blockOfMeasure(i);
    const { shift } = layout.measures[i];
    out[`mean(${c})`] = Float64Array.from({ length: G }, (_, g) => clamp(shift + noisy[g * L + k] / Math.max(1, noisy[g * L + count]), ...bounds));
  }
  return out;
}

/**
 * What one privacy unit moves a block of one group's vector by, as plan.js bounds it: maxRows (1
 * here, each row its own unit) times the per-row bound, with one quantum and the rounding margin for a sum.
 */
function sensitivityOf(layout) {
  return Float64Array.from(layout.blocks, (b) => {
    const m = layout.measures[b.measure];
    return m.kind === 'sum' ? b.perRow * (1 + 2 ** -20) + quantumOf(b.perRow) : b.perRow;
  });
}

/**
 * The public mechanism of a family on one group's vector of a layout (its blocks' sizes per group),
 * with an allocation of the noise over the blocks, at a plan's per-group target (plan.mechanism.target).
 */
function mechanismOf(family, layout, budget, allocation) {
  const sizes = layout.blocks.map((b) => b.size);
  return (family === 'gaussian' ? gaussianMechanism : laplaceMechanism)({ ...budget, groups: { sizes, sensitivity: sensitivityOf(layout) }, allocation });
}

/** A group-major vector with a one-group mechanism's noise, group after group from one rng (as noised in plan.js). */
function perGroup(mechanism, exact, length, rng) {
  const out = new Float64Array(exact.length);
  for (let at = 0; at < exact.length; at += length) out.set(mechanism.release(exact.subarray(at, at + length), { rng }), at);
  return out;
}

/** A one-group mechanism's noise on a layout's exact vector, REPS times from seeds 0, 1, ... (as aggregated uses). */
function simulate(mechanism, layout, data) {
  const exact = exactVector(layout, data);
  const L = layout.blocks.length;
  return Array.from({ length: REPS }, (_, r) => derive(perGroup(mechanism, exact, L, createRng({ seed: r })), layout, data.spec));
}

/** aggregate itself, REPS times from seeds 0, 1, ..., each with a budget of its own: independent releases. */
async function aggregated(noise, data) {
  const releases = [];
  for (let r = 0; r < REPS; r++) {
    const options = { ...withNoise(data.spec, noise), table: data.table, rng: createRng({ seed: r }) };
    const { rows } = await aggregate({ ...PRIVACY, budget: createBudget(PRIVACY), ...options });
    releases.push(Object.fromEntries(statisticsOf(data.spec).map((s) => [s, Float64Array.from(rows, (row) => row[s].value)])));
  }
  return releases;
}

/** Per statistic: the mean relative error over groups and repetitions. */
function errorsOf(releases, truth) {
  const out = {};
  for (const s of Object.keys(truth)) {
    const perRep = releases.map((x) => x[s].reduce((a, v, g) => a + Math.abs(v - truth[s][g]) / Math.abs(truth[s][g]), 0) / truth[s].length);
    out[s] = perRep.reduce((a, x) => a + x, 0) / REPS;
  }
  return out;
}

const percent = (x) => `${100 * x >= 10 ? (100 * x).toFixed(0) : (100 * x).toPrecision(2)}%`;

/** The peer's rows for a data set, after checking that it measured the same truth. */
function peerRows(name, truth) {
  if (!peer) return [];
  for (const [s, values] of Object.entries(truth)) {
    for (const [g, v] of values.entries()) {
      const theirs = peer[name].truth[s][g];
      if (Math.abs(theirs - v) > 1e-9 * Math.abs(v)) throw new Error(`${name} ${s}[${g}]: diffprivlib's truth ${theirs}, ours ${v}`);
    }
  }
  return peer[name].rows.map((r) => ({ method: `${r.method} (diffprivlib ${peer.diffprivlib})`, label: r.privacy, errors: r.errors }));
}

function printTable(title, statistics, rows) {
  console.log(`\n${title}\n`);
  console.log(`| method | privacy, noise | ${statistics.join(' | ')} | average |`);
  console.log(`| --- | --- |${' ---: |'.repeat(statistics.length + 1)}`);
  for (const { method, label, errors } of rows) {
    const average = statistics.reduce((a, s) => a + errors[s], 0) / statistics.length;
    console.log(`| ${method} | ${label} | ${statistics.map((s) => percent(errors[s])).join(' | ')} | ${percent(average)} |`);
  }
}

/**
 * The rows of a data set: aggregate (itself, checked against the simulation, or simulated) for
 * each variant, then per family the same vector with one noise sd for every coordinate, and plain
 * (not centred) sums divided by the noisy count.
 */
async function rowsOf(data, aggregateItself) {
  const G = data.spec.groups.length;
  const rows = [];
  const families = {};
  for (const { noise } of VARIANTS) {
    const plan = planFor(data.spec, noise);
    families[plan.family] = plan;
    // One group's vector: its blocks one coordinate each, in order.
    const L = plan.layout.blocks.length;
    if (plan.length !== L || plan.offsets.some((o, k) => o !== k)) throw new Error(`length ${plan.length}, offsets ${plan.offsets}`);
    // The public mechanism with the plan's blocks and per-group budget gives the plan's noise: so its 'iid' twin below is the same release with other weights.
    // (Not on the plan's counts on the grid of 1, calibrated to their exact sensitivity: the twins keep the fine grid there.)
    const twin = mechanismOf(plan.family, plan.layout, plan.mechanism.target, 'spr');
    const ours = sensitivityOf(plan.layout);
    if (ours.some((s, k) => s !== plan.sensitivity[k])) throw new Error(`sensitivities ${ours}, the plan's ${plan.sensitivity}`);
    if (twin.scales.some((s, k) => !plan.whole[k] && Math.abs(s / plan.mechanism.scales[k] - 1) > 2e-3))
      throw new Error(`scales ${twin.scales}, the plan's ${plan.mechanism.scales}`);
    if (twin.grid !== plan.mechanism.grid) throw new Error(`grid ${twin.grid}, the plan's ${plan.mechanism.grid}`);
    // The per-group draws here are noised's (plan.js), from one seed.
    const exact = exactVector(plan.layout, data);
    const theirs = noised(exact, plan, { rng: createRng({ seed: 0 }) });
    if (perGroup(plan.mechanism, exact, L, createRng({ seed: 0 })).some((x, i) => x !== theirs[i])) throw new Error('the per-group draws differ from noised');
    const simulated = simulate(plan.mechanism, plan.layout, data);
    const name = aggregateItself ? 'dpnoise aggregate' : 'dpnoise aggregate, simulated';
    const method = noise === undefined ? `${name} (default: chooses ${FAMILY[plan.family]})` : `${name}, ${FAMILY[noise]} forced`;
    if (aggregateItself) {
      const releases = await aggregated(noise, data);
      const differences = releases.flatMap((x, r) => Object.keys(x).flatMap((s) => Array.from(x[s], (v, g) => Math.abs(v - simulated[r][s][g]))));
      const largest = Math.max(...differences);
      if (largest !== 0) throw new Error(`${method}: the simulation differs from aggregate by up to ${largest}`);
      data.checks.push(`${method}: aggregate's ${REPS * G * statisticsOf(data.spec).length} released values equal the simulation's exactly`);
      rows.push({ method, label: privacyOf(plan.family), errors: errorsOf(releases, data.truth) });
    } else {
      rows.push({ method, label: privacyOf(plan.family), errors: errorsOf(simulated, data.truth) });
    }
  }
  // The plain-sum layout: the means' columns as `sum`s with shift 0 (what aggregate's plain layout for sums is), divided by the noisy count.
  const plainLayout = layoutOf(readSpec({ ...data.spec, mean: undefined, sum: data.spec.mean, table: [] }), false);
  for (const family of ['gaussian', 'laplace']) {
    const plan = families[family];
    const label = privacyOf(family);
    rows.push({
      method: 'identical noise on the same vector',
      label,
      errors: errorsOf(simulate(mechanismOf(family, plan.layout, plan.mechanism.target, 'iid'), plan.layout, data), data.truth),
    });
    rows.push({
      method: 'plain sums / noisy count (not centred; simulated)',
      label,
      errors: errorsOf(simulate(mechanismOf(family, plainLayout, plan.mechanism.target, 'spr'), plainLayout, data), data.truth),
    });
  }
  return rows;
}

/**
 * A data set from its rows (an iterator of [group index, values by column]): the counts, the sums
 * (for the truth) and the sums in quanta of each column centred and plain (for the exact vector).
 */
function dataSet(spec, rowsOf, table) {
  const G = spec.groups.length;
  const columns = Object.entries(spec.mean);
  const count = new Float64Array(G);
  const sums = columns.map(() => new Float64Array(G));
  const terms = columns.flatMap(([c, bounds]) => [midpoint(bounds), 0].map((shift) => ({ column: c, key: keyOf(c, shift), ...termOf(bounds, shift) })));
  const quanta = Object.fromEntries(terms.map((t) => [t.key, new Float64Array(G)]));
  for (const [g, values] of rowsOf()) {
    count[g]++;
    for (const [k, [c]] of columns.entries()) sums[k][g] += values[c];
    for (const t of terms) quanta[t.key][g] += t.quanta(values[t.column]);
  }
  for (const q of Object.values(quanta)) if (q.some((x) => Math.abs(x) > 2 ** 53)) throw new Error('a sum of quanta is not exact');
  for (const [k, [c, [lower, upper]]] of columns.entries()) if (sums[k].some((s, g) => s < lower * count[g] || s > upper * count[g])) throw new Error(c);
  const truth = { count: Array.from(count) };
  for (const [k, [c]] of columns.entries()) truth[`mean(${c})`] = Array.from(sums[k], (s, g) => s / count[g]);
  return { spec, count, quanta, table, truth, checks: [] };
}

// (a) The diabetes data, each row its own unit: aggregate itself, and the check the simulation of (b) relies on.
const diabetesRows = readDiabetesRows();
const dSpec = { groupBy: 'sex', groups: [1, 2], count: true, mean: { age: [0, 100], bmi: [15, 50], bp: [50, 150], target: [0, 400] } };
for (const row of diabetesRows) {
  for (const [c, [lower, upper]] of Object.entries(dSpec.mean)) if (!(row[c] >= lower && row[c] <= upper)) throw new Error(`${c} ${row[c]} is clipped`);
}
const diabetes = dataSet(
  dSpec,
  function* () {
    for (const row of diabetesRows) yield [dSpec.groups.indexOf(row.sex), row];
  },
  diabetesRows,
);
// The exact vector built here is the engine's (rowTotals, releaseVector), for every layout the rows use.
for (const { noise } of VARIANTS) {
  const spec = readSpec({ ...withNoise(dSpec, noise), table: diabetesRows });
  const plan = planOf(spec, TARGET);
  const found = rowTotals(objectReader(diabetesRows), spec, plan.layout);
  const groups = found.groups;
  const totals = found.totalsOf(groups.map((_, g) => g));
  if (groups.join() !== dSpec.groups.join()) throw new Error(`groups ${groups}`);
  const theirs = releaseVector(totals, groups.length, plan);
  const ours = exactVector(plan.layout, diabetes);
  if (theirs.some((x, i) => x !== ours[i])) throw new Error(`exact vector ${ours}, the engine's ${theirs}`);
}
printTable('Diabetes (442 rows; groups sex 1 and 2)', statisticsOf(dSpec), [...(await rowsOf(diabetes, true)), ...peerRows('diabetes', diabetes.truth)]);
console.log(`\nThe simulation on the exact vector against aggregate itself (same seeds, ${REPS} repetitions):\n`);
for (const line of diabetes.checks) console.log(`- ${line}`);

// (b) 1e7 synthetic rows from a counter-based hash (lowbias32, C. Wellons) that
// aggregate_accuracy_diffprivlib.py computes identically with numpy: exact totals once, then the noise only.
const ROWS = 1e7;
const SEED = 20261125;
const SHARES = [0.4, 0.7, 0.85, 0.95, 1]; // cumulative group shares
function hash32(x) {
  let h = x ^ (x >>> 16);
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}
const uniform = (i, j) => (hash32(hash32(4 * i + j) ^ SEED) + 0.5) / 2 ** 32;
const sSpec = { groupBy: 'group', groups: [0, 1, 2, 3, 4], count: true, mean: { age: [0, 100], income: [0, 500000], hours: [0, 80] } };
const synthetic = dataSet(sSpec, function* () {
  const values = { age: 0, income: 0, hours: 0 };
  for (let i = 0; i < ROWS; i++) {
    const u0 = uniform(i, 0);
    let g = 0;
    while (u0 >= SHARES[g]) g++;
    const u2 = uniform(i, 2);
    values.age = 18 + 62 * uniform(i, 1) + 3 * g;
    values.income = 10000 + 150000 * u2 * u2 * (1 + 0.2 * g);
    values.hours = 5 + 55 * uniform(i, 3) + 2 * g;
    yield [g, values];
  }
});
printTable(`Synthetic (1e7 rows; 5 groups of ${synthetic.truth.count.join(', ')} rows)`, statisticsOf(sSpec), [
  ...(await rowsOf(synthetic, false)),
  ...peerRows('synthetic', synthetic.truth),
]);
