// The demo page: reads the inputs, asks the worker, shows the figures and the plots (uPlot).
import uPlot from '/node_modules/uplot/dist/uPlot.esm.js';

const worker = new Worker('/demo/worker.js', { type: 'module' });
const form = document.getElementById('inputs');
const status = document.getElementById('status');
const COLOURS = {
  'Gaussian iid': '#9aa5b8',
  'Gaussian optimal': '#2563eb',
  'Laplace iid': '#d6a77a',
  'Laplace optimal': '#c2410c',
  'Gaussian spr': '#64748b',
  'Laplace spr': '#92400e',
};
const plots = {};
/** Axis numbers: plain when short, else like 1e+7. */
const tick = (v) => (v === null ? '' : Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(0) : String(+v.toPrecision(3)));
let latest = 0;

function readInputs() {
  const f = new FormData(form);
  return { profile: f.get('profile'), K: Number(f.get('K')), epsilon: Number(f.get('epsilon')), delta: Number(f.get('delta')), csv: String(f.get('csv')) };
}

function plot(id, data, series, { logX = false, logY = false, xLabel = '' } = {}) {
  plots[id]?.destroy();
  const el = document.getElementById(id);
  plots[id] = new uPlot(
    {
      width: 520,
      height: 240,
      scales: { x: { time: false, distr: logX ? 3 : 1 }, y: { distr: logY ? 3 : 1 } },
      axes: [
        { label: xLabel, values: (_, ticks) => ticks.map(tick) },
        { size: 60, values: (_, ticks) => ticks.map(tick) },
      ],
      series: [{}, ...series.map(([label, stroke, extra]) => ({ label, stroke, width: 2, ...extra }))],
    },
    data,
    el,
  );
}

function render(r) {
  document.querySelector('[data-testid=gini]').textContent = r.gini.toFixed(4);
  document.querySelector('#figures tbody').innerHTML = r.figures
    .map(
      (row) =>
        `<tr data-testid="row-${row.noise}-${row.allocation}"><td>${row.noise}</td><td>${row.allocation}</td>` +
        `<td data-testid="mse">${row.mse.toPrecision(6)}</td><td data-testid="gain">${row.gain.toFixed(4)}</td>` +
        `<td>${(10 * Math.log10(row.gain)).toFixed(2)}</td></tr>`,
    )
    .join('');
  const index = r.figures[0].scales.map((_, i) => i + 1);
  const shown = r.figures.filter((f) => f.allocation !== 'iid' || f.noise === 'Gaussian');
  plot(
    'plot-scales',
    [index, ...shown.map((f) => f.scales)],
    shown.map((f) => [`${f.noise} ${f.allocation}`, COLOURS[`${f.noise} ${f.allocation}`]]),
    { logY: true, xLabel: 'coordinate' },
  );
  const curves = ['Gaussian iid', 'Gaussian optimal', 'Laplace iid', 'Laplace optimal'].map((l) => [l, COLOURS[l]]);
  plot('plot-epsilon', [r.epsilons, ...r.mseEpsilon], curves, { logX: true, logY: true, xLabel: 'ε' });
  if (r.Ks.length) plot('plot-K', [r.Ks, ...r.mseK], curves, { logX: true, logY: true, xLabel: 'K (same shape)' });
  const density = r.histogram.gaussian.centres.map((x) => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI));
  const laplaceDensity = r.histogram.laplace.centres.map((x) => Math.exp(-Math.abs(x) * Math.SQRT2) / Math.SQRT2);
  plot(
    'plot-histogram',
    [r.histogram.gaussian.centres, r.histogram.gaussian.density, density, r.histogram.laplace.density, laplaceDensity],
    [
      ['Gaussian draws', COLOURS['Gaussian optimal'], { paths: uPlot.paths.stepped({ align: 0 }) }],
      ['N(0, 1) density', '#111827'],
      ['Laplace draws (sd 1)', COLOURS['Laplace optimal'], { paths: uPlot.paths.stepped({ align: 0 }) }],
      ['Laplace density', '#6b7280'],
    ],
    { xLabel: 'noise / sd' },
  );
  plot('plot-correlated', [r.correlated.dims, r.correlated.gain], [['MSE gain over the standard mechanism', '#047857']], { logX: true, xLabel: 'dimension d' });
}

function update() {
  const id = ++latest;
  status.textContent = 'computing…';
  worker.postMessage({ id, inputs: readInputs() });
}

worker.onmessage = ({ data }) => {
  if (data.id !== latest) return;
  if (data.error) {
    status.textContent = `Error: ${data.error}`;
    return;
  }
  render(data.result);
  status.textContent = `K = ${data.result.K}: done`;
};
form.addEventListener('input', update);
update();
