// Benchmark group "Accountant": the privacy accountant (compose(...).epsilon(delta) and
// .bounds(delta)) on DP-SGD-like compositions, against Google's dp_accounting (its PLD and RDP
// accountants) run by bench/accountant_baseline.py in the same run. dp_accounting is not on PyPI
// here, so the group looks for it in the venv scripts/accounting_reference.py sets up, then in
// python3; without it, dpnoise is timed alone and the baseline columns are "—".
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { compose, gaussianPrivacy, laplacePrivacy, subsample } from 'dpnoise';
import { fmt, NONE, times } from './format.mjs';

export const title = 'Accountant';

const DELTA = 1e-5;
const INTERVAL = 1e-4; // dp_accounting's default value_discretization_interval
const BATCHES = 5;
/** dp_accounting takes minutes on the 1000 distinct steps, so that run is stopped after this. */
const CAP_SECONDS = 60;
const PYTHONS = ['/work/venvs/dpacc/bin/python', 'python3'];
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'accounting.json');
const SCHEDULE_ID = 'dpsgd_schedule_q0.01_z0.8_to_1.2_T1000'; // case (c) in FIXTURE

/** A part of a composition; bench/accountant_baseline.py builds the same one as a DpEvent. */
const sampledGaussian = (z, times) => ({ mechanism: 'gaussian', scale: z, rate: 0.01, times });
const CASES = [
  { id: 'a', label: '(a) 1e4 steps, z = 1.1', parts: [sampledGaussian(1.1, 1e4)], aim: 0.05, rdp: true },
  { id: 'b', label: '(b) 1e5 steps, z = 1', parts: [sampledGaussian(1, 1e5)], aim: 0.05, rdp: true },
  {
    id: 'c',
    label: '(c) 1000 distinct steps, z = 0.8 to 1.2',
    parts: Array.from({ length: 1000 }, (_, t) => sampledGaussian(0.8 + (0.4 * t) / 999, 1)), // as in FIXTURE
    aim: 1,
    once: true,
  },
  {
    id: 'd',
    label: '(d) 10 Laplace b = 10 + 10 Gaussian z = 2',
    parts: [
      { mechanism: 'laplace', scale: 10, times: 10 },
      { mechanism: 'gaussian', scale: 2, times: 10 },
    ],
    rdp: true,
  },
];

/** New privacy objects for `parts`, so nothing is cached from an earlier call. */
function accountant(parts) {
  return compose(
    parts.map(({ mechanism, scale, rate, times }) => {
      const options = { scales: scale, sensitivity: [1] };
      const privacy = mechanism === 'gaussian' ? gaussianPrivacy(options) : laplacePrivacy(options);
      return { privacy: rate === undefined ? privacy : subsample(privacy, { rate }), times };
    }),
  );
}

/** dp_accounting's timings, with the first interpreter that can import it. */
function dpAccounting(ctx) {
  const reasons = [];
  for (const command of PYTHONS) {
    const options = { script: 'accountant_baseline.py', command };
    const probe = ctx.python({ tasks: [] }, options);
    if (!probe.available) {
      reasons.push(probe.reason);
      continue;
    }
    const task = (c, method) => ({ id: `${method}-${c.id}`, method, parts: c.parts, delta: DELTA, query: c.id === 'a' });
    const tasks = CASES.flatMap((c) => [
      { ...task(c, 'pld'), interval: INTERVAL, ...(c.once ? { capSeconds: CAP_SECONDS } : { batches: BATCHES }) },
      ...(c.rdp ? [{ ...task(c, 'rdp'), batches: BATCHES }] : []),
    ]);
    return { command, ...ctx.python({ tasks }, options) };
  }
  return { available: false, reason: reasons.join('; ') };
}

/** The last full run of case (c) by scripts/accounting_reference.py: epsilon and seconds, where recorded. */
function scheduleFixture() {
  try {
    const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    const seconds = (what) => fixture.timings.per_computation_seconds.find((t) => t.what === what)?.seconds;
    const results = fixture.cases.find((c) => c.id === SCHEDULE_ID).results;
    const pld = results.find((r) => r.method === 'pld' && r.value_discretization_interval === INTERVAL && r.delta === DELTA);
    return { epsilon: pld?.epsilon, pldSeconds: seconds(`${SCHEDULE_ID} pld ${INTERVAL}`), rdpSeconds: seconds(`${SCHEDULE_ID} rdp`) };
  } catch {
    return {}; // no fixture (or another layout): the notes say less
  }
}

/** Runs of each of dpnoise's (c) columns, new objects each time: the median is reported. */
const FRESH_RUNS = 3;

/** Seconds of one call. */
function once(fn) {
  const start = performance.now();
  fn();
  return (performance.now() - start) / 1e3;
}

/** The median seconds of FRESH_RUNS calls of each function, the functions interleaved. */
function medianOfFresh(fns) {
  const runs = fns.map(() => []);
  for (let r = 0; r < FRESH_RUNS; r++) for (const [k, fn] of fns.entries()) runs[k].push(once(fn));
  return runs.map((seconds) => seconds.sort((a, b) => a - b)[Math.floor(FRESH_RUNS / 2)]);
}

const eps = (x) => (Number.isFinite(x) ? x.toPrecision(5) : NONE);
const percent = (x, reference) => (Number.isFinite(x) ? `${x >= reference ? '+' : ''}${((x / reference - 1) * 100).toFixed(3)}%` : NONE);

export async function run(ctx) {
  // --- dp_accounting: one Python process for the group, before the dpnoise timings ---
  ctx.log('  dp_accounting ...');
  const py = dpAccounting(ctx);
  const result = (id) => (py.available ? py.results[id] : undefined);
  const fixture = scheduleFixture();

  const timingRows = [];
  const agreementRows = [];
  const aims = [];
  const epsilonSeconds = {}; // dpnoise, by case id
  const outside = []; // cases whose PLD epsilon is outside dpnoise's certified range
  for (const c of CASES) {
    ctx.log(`  ${c.label} ...`);
    const last = {};
    const fresh = [() => (last.epsilon = accountant(c.parts).epsilon(DELTA)), () => (last.bounds = accountant(c.parts).bounds(DELTA))];
    const [epsilonS, boundsS] = c.once ? medianOfFresh(fresh) : ctx.measureEach(fresh, { seconds: 0.5, batches: BATCHES }).map((r) => r.perUnit);
    epsilonSeconds[c.id] = epsilonS;
    if (c.aim) aims.push(`(${c.id}) ${epsilonS < c.aim ? 'met' : 'NOT met'} (${fmt(epsilonS)} s)`);

    const pld = result(`pld-${c.id}`);
    const rdp = result(`rdp-${c.id}`);
    const stopped = pld && pld.epsilon === null; // capped before the last step: a lower bound
    const bound = stopped ? '> ' : '';
    timingRows.push([
      c.label,
      fmt(epsilonS),
      fmt(boundsS),
      pld ? bound + fmt(pld.seconds) : NONE,
      pld ? bound + times(pld.seconds, epsilonS) : NONE,
      rdp ? fmt(rdp.seconds) : NONE,
      rdp ? times(rdp.seconds, epsilonS) : NONE,
    ]);
    const pldEpsilon = stopped ? fixture.epsilon : pld?.epsilon;
    agreementRows.push([
      c.label,
      eps(last.epsilon),
      `[${eps(last.bounds.lower)}, ${eps(last.bounds.upper)}]`,
      eps(pldEpsilon) + (stopped && Number.isFinite(pldEpsilon) ? ' *' : ''),
      percent(pldEpsilon, last.epsilon),
      eps(rdp?.epsilon),
    ]);
    if (pldEpsilon < last.bounds.lower || pldEpsilon > last.bounds.upper) outside.push(c.id);
    if (Number.isFinite(pldEpsilon))
      ctx.check(Math.abs(pldEpsilon / last.epsilon - 1) < 0.01, `dp_accounting's epsilon for ${c.label} is not within 1% of dpnoise's`);

    if (c.id === 'a') {
      // What a user polling epsilon (or bounds) during training sees: the same object asked again.
      const polled = accountant(c.parts);
      const bounded = accountant(c.parts);
      polled.epsilon(DELTA);
      bounded.bounds(DELTA);
      const [againS, boundsAgainS] = ctx
        .measureEach([() => polled.epsilon(DELTA), () => bounded.bounds(DELTA)], { seconds: 0.5, batches: BATCHES })
        .map((r) => r.perUnit);
      timingRows.push([
        '(a) asked again, same object',
        fmt(againS),
        fmt(boundsAgainS),
        pld ? fmt(pld.querySeconds) : NONE,
        pld ? times(pld.querySeconds, againS) : NONE,
        rdp ? fmt(rdp.querySeconds) : NONE,
        rdp ? times(rdp.querySeconds, againS) : NONE,
      ]);
    }
  }

  const capped = result('pld-c');
  const cNotes = [
    `(c) is timed by single calls: dpnoise's epsilon and bounds, each the median of ${FRESH_RUNS} calls on new objects (the two interleaved) after the other cases warmed the code up` +
      (capped
        ? `, and dp_accounting's PLD accountant, which composes the 1000 different steps one at a time and is stopped once ${CAP_SECONDS} s have passed` +
          (capped.epsilon === null ? ` (here after ${capped.composed} of 1000 steps), so its time and ratio are lower bounds.` : '.')
        : '.'),
  ];
  if (fixture.pldSeconds) {
    cNotes.push(
      `dp_accounting's full run of (c) by scripts/accounting_reference.py took ${fmt(fixture.pldSeconds)} s ` +
        `(recorded in test/fixtures/accounting.json: another run, on the machine the fixtures were made on), ${times(fixture.pldSeconds, epsilonSeconds.c)} dpnoise's epsilon time here` +
        (capped?.epsilon === null ? '; the PLD epsilon marked * is from that run' : '') +
        `. RdpAccountant is not timed on (c)${fixture.rdpSeconds ? ` (${fmt(fixture.rdpSeconds)} s in that run)` : ''}.`,
    );
  }
  const baselineNote = py.available
    ? `dp_accounting ${py.versions.dp_accounting}, Python ${py.versions.python} (\`${py.command}\`).`
    : `dp_accounting not available (${py.reason}): dpnoise alone. scripts/accounting_reference.py describes how to install it.`;
  return [
    {
      heading: 'Privacy accountant against dp_accounting: seconds per epsilon(1e-5)',
      text:
        'Accounting at delta = 1e-5, sensitivity 1, add-or-remove neighbours; (a) to (c) are Poisson-subsampled Gaussian steps at q = 0.01 (DP-SGD). ' +
        '*dpnoise epsilon*: new privacy objects (gaussianPrivacy or laplacePrivacy, subsample, compose with { privacy, times }) and their first epsilon(1e-5), ' +
        'the whole computation, since each object caches its distributions; *dpnoise bounds*: the same with bounds(1e-5), the certified range (which computes epsilon too). ' +
        '*PLD*: dp_accounting PLDAccountant(value_discretization_interval = 1e-4, its default) constructed, compose(DpEvent), get_epsilon(1e-5); ' +
        '*RDP*: the same with RdpAccountant() and its default orders (bench/accountant_baseline.py). ' +
        '*Asked again*: epsilon(1e-5) and bounds(1e-5) again on one object already asked (dp_accounting: get_epsilon(1e-5) again on the composed accountant). ' +
        `Ratios are dp_accounting time ÷ dpnoise epsilon time (above 1: dpnoise is faster). Medians of ${BATCHES} batches of about 0.1 s (at least one call) ` +
        "after at least 2 warm-up calls, dpnoise's two columns interleaved, except (c) (see the notes); dp_accounting runs first, alone.",
      columns: ['case', 'dpnoise epsilon s', 'dpnoise bounds s', 'PLD s', 'PLD ÷ dpnoise', 'RDP s', 'RDP ÷ dpnoise'],
      rows: timingRows,
      notes: [
        `Aim (dpnoise epsilon: 1e4 and 1e5 identical steps under 50 ms each, 1000 distinct steps under 1 s): ${aims.join(', ')}.`,
        ...cNotes,
        baselineNote,
      ],
    },
    {
      heading: 'Agreement: epsilon at delta = 1e-5',
      text:
        "dpnoise's epsilon(1e-5) and its certified range bounds(1e-5) = [lower, upper] from the runs above, next to dp_accounting's PLD (interval 1e-4, pessimistic) and RDP (an upper bound, loose) answers. " +
        '*PLD vs dpnoise*: PLD epsilon ÷ dpnoise epsilon − 1.',
      columns: ['case', 'dpnoise epsilon', 'dpnoise certified range', 'PLD epsilon', 'PLD vs dpnoise', 'RDP epsilon'],
      rows: agreementRows,
      notes: agreementRows.some((r) => r[3] !== NONE)
        ? [
            outside.length
              ? `dp_accounting's PLD epsilon lies outside dpnoise's certified range in case(s) ${outside.map((id) => `(${id})`).join(', ')}.`
              : "dp_accounting's PLD epsilon lies inside dpnoise's certified range in every case that has one.",
          ]
        : [],
    },
  ];
}
