// The README's accountant table: dpnoise's epsilon(delta) and certified range bounds(delta) for
// fixtures of test/fixtures/accounting.json and test/fixtures/discrete-laplace.json (each given to
// `compose` as its dp_accounting DpEvent), next to the fixtures' dp_accounting PLD answer (finest
// interval), exact value and dp_accounting RDP answer (made by scripts/accounting_reference.py and
// scripts/discrete_laplace_reference.py). Run after `npm run build`: node scripts/accountant-table.mjs.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compose } from 'dpnoise';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures');
const { cases } = JSON.parse(readFileSync(join(fixtures, 'accounting.json'), 'utf8'));
const discrete = JSON.parse(readFileSync(join(fixtures, 'discrete-laplace.json'), 'utf8'));

const event = (className, fields) => ({ module_name: 'dp_accounting.dp_event', class_name: className, ...fields });
/** A row from accounting.json: its event and the fixture's answers at `delta`. */
function fromCases(label, id, delta) {
  const c = cases.find((x) => x.id === id);
  const at = (method) => c.results.filter((r) => r.method === method && r.query === 'epsilon' && r.delta === delta);
  const pld = at('pld').reduce((a, b) => (a.value_discretization_interval <= b.value_discretization_interval ? a : b));
  return { label, event: c.event, delta, pld: pld.epsilon, exact: at('exact')[0]?.epsilon, rdp: at('rdp')[0]?.epsilon };
}
/** The discrete Laplace row: 1000 Poisson-subsampled steps of scale 25 at sensitivity 30. */
function discreteRow(label, delta) {
  const r = discrete.pld.find((x) => x.scale === 25 && x.sensitivity === 30 && x.rate === 0.01 && x.times === 1000 && x.delta === delta);
  const step = event('PoissonSampledDpEvent', {
    sampling_probability: 0.01,
    event: event('DiscreteLaplaceDpEvent', { noise_parameter: 1 / 25, sensitivity: 30 }),
  });
  return { label, event: event('SelfComposedDpEvent', { event: step, count: 1000 }), delta, pld: r.epsilon };
}

const rows = [
  fromCases('10^4 Poisson Gaussian steps, z 1.1, q 0.01 (1e-5)', 'poisson_gaussian_z1.1_q0.01_T10000', 1e-5),
  fromCases('10^5 Poisson Gaussian steps, z 1, q 0.01 (1e-5)', 'poisson_gaussian_z1_q0.01_T100000', 1e-5),
  fromCases('10^4 Poisson Gaussian steps, z 0.6, q 0.001 (1e-5)', 'poisson_gaussian_z0.6_q0.001_T10000', 1e-5),
  fromCases('1000 Poisson Laplace steps, b 2, q 0.01 (1e-5)', 'poisson_laplace_b2_q0.01_T1000', 1e-5),
  fromCases('10 Laplace b 10 and 10 Gaussian z 2 (1e-6)', 'mixture_10laplace_b10_10gaussian_z2', 1e-6),
  fromCases('100 Gaussian releases, z 1 (1e-5)', 'gaussian_z1_T100', 1e-5),
  fromCases('10 discrete Laplace releases, scale 3 (1e-6)', 'discrete_laplace_t3_T10', 1e-6),
  discreteRow('1000 Poisson discrete Laplace steps, scale 25, sensitivity 30, q 0.01 (1e-6)', 1e-6),
];

const fmt = (x) => (x === undefined ? '' : x.toPrecision(6));
console.log('| releases (delta) | dpnoise epsilon | certified range | dp_accounting PLD | exact | Renyi DP |');
console.log('| --- | ---: | --- | ---: | ---: | ---: |');
for (const row of rows) {
  const privacy = compose([{ event: row.event, times: 1 }]);
  const epsilon = privacy.epsilon(row.delta);
  const { lower, upper } = privacy.bounds(row.delta);
  const pure = privacy.kind === 'pure' ? ' (pure)' : '';
  console.log(`| ${row.label} | ${fmt(epsilon)}${pure} | [${fmt(lower)}, ${fmt(upper)}] | ${fmt(row.pld)} | ${fmt(row.exact)} | ${fmt(row.rdp)} |`);
}
