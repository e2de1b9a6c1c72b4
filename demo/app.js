// The demo page: reads and checks the inputs, asks the worker, shows the figures and the plots (uPlot).
import uPlot from '/node_modules/uplot/dist/uPlot.esm.js';

const worker = new Worker('/demo/worker.js', { type: 'module' });
const form = document.getElementById('inputs');
const status = document.getElementById('status');
const gini = document.querySelector('[data-testid=gini]');
const table = document.querySelector('#figures tbody');
/** The fields that can be wrong; each has a `${id}-error` element beside it. */
const fields = { K: form.elements.K, epsilon: form.elements.epsilon, delta: form.elements.delta, csv: form.elements.csv };
const COLOURS = {
  'Gaussian iid': '#9aa5b8',
  'Gaussian optimal': '#2563eb',
  'Laplace iid': '#d6a77a',
  'Laplace optimal': '#c2410c',
  'Gaussian spr': '#64748b',
  'Laplace spr': '#92400e',
  'Staircase optimal': '#047857',
};
const plots = {};
/** Axis numbers: plain when short, else like 1e+7. */
const tick = (v) => (v === null ? '' : Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(0) : String(+v.toPrecision(3)));
/** Legend values: the point under the cursor, and nothing (not uPlot's "--") when there is none. */
const readout = (_, v) => (v == null ? '' : v.toPrecision(3));
/** Decibels to 2 decimals; a gain a hair below 1 shows 0.00, not -0.00. */
const decibels = (gain) => (10 * Math.log10(gain)).toFixed(2).replace(/^-(0\.0+)$/, '$1');
let latest = 0;

/** The CSV's entries; sets the field's error for the first unusable one. */
function readCsv() {
  const entries = fields.csv.value.split(/[\s,;]+/).filter(Boolean);
  const values = entries.map(Number);
  const bad = values.findIndex((x) => !(Number.isFinite(x) && x >= 0));
  const max = Number(fields.K.max);
  let error = '';
  if (entries.length === 0) error = 'Paste at least one number.';
  else if (bad >= 0) error = `Entry ${bad + 1} (${entries[bad]}) is not a number >= 0.`;
  else if (!values.some((x) => x > 0)) error = 'At least one entry must be above 0.';
  else if (values.length > max) error = `At most ${max} entries; got ${values.length}.`;
  fields.csv.setCustomValidity(error);
  return values;
}

/** Shows `message` beside `field` (or clears it), linked for assistive technology. */
function showError(field, message) {
  const note = document.getElementById(`${field.id}-error`);
  note.textContent = message;
  if (message) {
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-describedby', note.id);
  } else {
    field.removeAttribute('aria-invalid');
    field.removeAttribute('aria-describedby');
  }
}

function drop(id) {
  plots[id]?.destroy();
  delete plots[id];
}

/** Results of earlier inputs must not stay on screen next to an error. */
function clearResults() {
  gini.textContent = '–';
  table.replaceChildren();
  for (const id of Object.keys(plots)) drop(id);
}

function plot(id, data, series, { logX = false, logY = false, xLabel = '', yLabel = '' } = {}) {
  drop(id);
  const el = document.getElementById(id);
  el.setAttribute('aria-label', `${yLabel} against ${xLabel}: ${series.map(([label]) => label).join(', ')}`);
  plots[id] = new uPlot(
    {
      width: Math.min(520, el.clientWidth || 520), // a phone's column is narrower
      height: 240,
      // The x axis ends at the data's ends (uPlot would round a log axis out to the next decade).
      scales: { x: { time: false, distr: logX ? 3 : 1, range: (_, min, max) => [min, max] }, y: { distr: logY ? 3 : 1 } },
      axes: [
        { label: xLabel, values: (_, ticks) => ticks.map(tick) },
        { label: yLabel, size: 60, values: (_, ticks) => ticks.map(tick) },
      ],
      series: [{ label: xLabel, value: readout }, ...series.map(([label, stroke, extra]) => ({ label, stroke, width: 2, value: readout, ...extra }))],
    },
    data,
    el,
  );
}

function render(r) {
  gini.textContent = r.gini.toFixed(4);
  table.innerHTML = r.figures
    .map(
      (row) =>
        `<tr data-testid="row-${row.noise}-${row.allocation}"><td>${row.noise}</td><td>${row.allocation}</td>` +
        `<td data-testid="mse">${row.mse.toPrecision(6)}</td><td data-testid="gain">${row.gain.toFixed(4)}</td>` +
        `<td data-testid="dB">${decibels(row.gain)}</td></tr>`,
    )
    .join('');
  const index = r.figures[0].scales.map((_, i) => i + 1);
  const shown = r.figures.filter((f) => f.scales && (f.allocation !== 'iid' || f.noise === 'Gaussian')); // the staircase has budgets, not scales
  plot(
    'plot-scales',
    [index, ...shown.map((f) => f.scales)],
    shown.map((f) => [`${f.noise} ${f.allocation}`, COLOURS[`${f.noise} ${f.allocation}`]]),
    { logY: true, xLabel: 'coordinate', yLabel: 'noise scale' },
  );
  const curves = ['Gaussian iid', 'Gaussian optimal', 'Laplace iid', 'Laplace optimal'].map((l) => [l, COLOURS[l]]);
  plot('plot-epsilon', [r.epsilons, ...r.mseEpsilon], [...curves, ['Staircase optimal', COLOURS['Staircase optimal']]], {
    logX: true,
    logY: true,
    xLabel: 'ε',
    yLabel: 'MSE',
  });
  // A pasted profile has no shape to stretch to other lengths: no plot against K.
  document.getElementById('plot-K').parentElement.hidden = !r.Ks.length;
  if (r.Ks.length) plot('plot-K', [r.Ks, ...r.mseK], curves, { logX: true, logY: true, xLabel: 'K (same shape)', yLabel: 'MSE' });
  else drop('plot-K');
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
    { xLabel: 'noise / sd', yLabel: 'density' },
  );
  plot('plot-correlated', [r.correlated.dims, r.correlated.gain], [['MSE gain over the standard mechanism', '#047857']], {
    logX: true,
    xLabel: 'dimension d',
    yLabel: 'MSE gain',
  });
}

/** Clears the results and says which fields to fix. */
function reject(wrong) {
  clearResults();
  status.textContent = `Not computed: check ${wrong.map((field) => field.labels[0].textContent).join(', ')}.`;
}

function update() {
  const id = ++latest; // from here on, replies to earlier inputs are stale
  const csv = form.elements.profile.value === 'csv';
  document.getElementById('csv-field').hidden = !csv;
  fields.csv.disabled = !csv; // disabled fields are not validated
  fields.K.disabled = csv;
  const inputs = { profile: form.elements.profile.value, K: fields.K.valueAsNumber, epsilon: fields.epsilon.valueAsNumber, delta: fields.delta.valueAsNumber };
  if (csv) {
    inputs.values = readCsv();
    fields.K.value = inputs.values.length; // K follows the CSV
  }
  // The units of the figures, and a word on a delta too large to mean privacy.
  document.getElementById('units').textContent = csv ? '(your sensitivities, in their units)' : '(profile scaled to ‖λ‖₂ = 1)';
  document.getElementById('delta-note').hidden = !(fields.delta.valueAsNumber > 1e-4);
  const wrong = Object.values(fields).filter((field) => !field.disabled && !field.validity.valid);
  for (const field of Object.values(fields)) showError(field, wrong.includes(field) ? field.validationMessage : '');
  if (wrong.length) return reject(wrong);
  status.textContent = 'computing…';
  worker.postMessage({ id, inputs });
}

/** The field a library error is about: its message names the argument, as in "dpnoise: `epsilon` must be ...". */
function fieldOf(message) {
  const name = /`(\w+)/.exec(message)?.[1];
  if (name === 'sensitivity') return fields.csv.disabled ? fields.K : fields.csv;
  return name === 'epsilon' || name === 'delta' ? fields[name] : undefined;
}

worker.onmessage = ({ data }) => {
  if (data.id !== latest) return;
  if (data.error) {
    const field = fieldOf(data.error);
    if (field) {
      const message = data.error.replace(/^dpnoise: /, '');
      // The library sees the profile scaled to ||lambda||_2 = 1, so its numbers are the scaled ones.
      showError(field, field === fields.epsilon || field === fields.delta ? message : `Scaled profile: ${message}`);
      return reject([field]);
    }
    clearResults();
    status.textContent = `Error: ${data.error}`;
    return;
  }
  render(data.result);
  status.textContent = `K = ${data.result.K}: done`;
};
form.addEventListener('input', update);
update();
