// The "aggregate a CSV" page: reads the chosen file's header (in the page), checks the inputs, asks
// the worker (demo/aggregate-worker.js) for the release, and shows the private table and a chart
// of each statistic with its interval.
const worker = new Worker('/demo/aggregate-worker.js', { type: 'module' });
const form = document.getElementById('inputs');
const status = document.getElementById('status');
const button = document.getElementById('release');
const body = document.querySelector('#result tbody');
const charts = document.getElementById('charts');
const fields = form.elements;
let latest = 0;

/** The column names of a CSV header line (quotes removed). */
const headerOf = (line) => line.split(',').map((name) => name.trim().replace(/^"(.*)"$/, '$1'));

function fill(select, names, keep = []) {
  select.replaceChildren(...keep, ...names.map((name) => new Option(name, name)));
}

fields.file.addEventListener('change', async () => {
  const file = fields.file.files[0];
  if (!file) return;
  // Only the first line is read here, in the page, for the column names.
  const first = (await file.slice(0, 65536).text()).split(/\r?\n/)[0];
  const names = headerOf(first);
  fill(fields.groupBy, names);
  fill(fields.unit, names, [new Option('each row', '')]);
  fill(fields.column, names);
  button.disabled = false;
  status.textContent = `${file.name}: ${names.length} columns. Choose the statistic and release.`;
});

/** A field's value as a number, or its error shown beside it. */
function number(name, check, message) {
  const x = Number(fields[name].value);
  const ok = fields[name].value !== '' && check(x);
  fields[name].setAttribute('aria-invalid', String(!ok));
  const error = document.getElementById(`${name}-error`);
  if (error) error.textContent = ok ? '' : message;
  return ok ? x : undefined;
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const epsilon = number('epsilon', (x) => x > 0 && x <= 50, 'A number above 0, at most 50.');
  const delta = number('delta', (x) => x > 0 && x < 0.5, 'A number above 0, below 0.5.');
  const lower = number('lower', Number.isFinite, 'A number.');
  const upper = number('upper', (x) => lower !== undefined && x > lower, 'A number above the lower bound.');
  if ([epsilon, delta, lower, upper].includes(undefined)) {
    status.textContent = 'Not released: fix the fields marked.';
    return;
  }
  const groups = fields.groups.value
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  const unit = fields.unit.value;
  const spec = {
    groupBy: fields.groupBy.value,
    ...(groups.length > 0 ? { groups } : {}),
    ...(unit ? { privacyUnit: unit, maxGroups: groups.length > 0 ? groups.length : 1 } : {}),
    count: true,
    mean: { [fields.column.value]: [lower, upper] },
    invalid: 'drop',
  };
  const id = ++latest;
  status.textContent = 'reading the file in this page and releasing…';
  worker.postMessage({ id, file: fields.file.files[0], spec, privacy: { epsilon, delta } });
});

worker.onmessage = ({ data }) => {
  if (data.id !== latest) return;
  if (data.error) {
    status.textContent = `Not released: ${data.error}`;
    return;
  }
  show(data.result);
  status.textContent = `Released: epsilon ${data.result.spent.epsilon.toPrecision(3)} at delta ${data.result.spent.delta} spent. done`;
};

/** Figures for reading: whole numbers up to 1e12 in full, tiny and huge ones with an exponent, the rest to 6 digits. */
const fmt = (x) =>
  Math.abs(x) >= 1e12 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : Math.abs(x) >= 1e5 ? x.toFixed(0) : String(+x.toPrecision(6));

function show({ table, unit, level }) {
  document.getElementById('unit-text').textContent = `(protects ${unit}; ${Math.round(level * 100)}% intervals)`;
  body.replaceChildren(
    ...table.map((line) => {
      const row = document.createElement('tr');
      const name = line.column ? `${line.statistic}(${line.column})` : line.statistic;
      for (const text of [
        line.group,
        name,
        fmt(line.value),
        line.sd === undefined ? `${fmt(line.rankSd)} (rank)` : fmt(line.sd),
        `[${fmt(line.low)}, ${fmt(line.high)}]`,
      ])
        row.insertCell().textContent = text;
      return row;
    }),
  );
  const byStatistic = Map.groupBy(table, (line) => (line.column ? `${line.statistic}(${line.column})` : line.statistic));
  charts.replaceChildren(...[...byStatistic].map(([name, lines]) => chart(name, lines)));
}

/**
 * An SVG chart of one statistic: each group's interval as a bar with caps (drawn at least 6 px
 * tall, so that a narrow one still shows) and its value as a dot.
 */
function chart(name, lines) {
  const W = 360;
  const H = 220;
  const pad = { left: 78, right: 10, top: 12, bottom: 40 };
  const low = Math.min(...lines.map((l) => l.low));
  const high = Math.max(...lines.map((l) => l.high));
  const margin = 0.1 * (high - low || Math.abs(high) || 1);
  const [lo, hi] = [low - margin, high + margin];
  const y = (v) => pad.top + ((H - pad.top - pad.bottom) * (hi - v)) / (hi - lo);
  const x = (i) => pad.left + ((i + 0.5) * (W - pad.left - pad.right)) / lines.length;
  const marks = lines.map((l, i) => {
    const [top, bottom] = [Math.min(y(l.high), y(l.value) - 3), Math.max(y(l.low), y(l.value) + 3)];
    const cap = (at) => `<line x1="${x(i) - 7}" x2="${x(i) + 7}" y1="${at}" y2="${at}" stroke="#2563eb" stroke-width="2"/>`;
    return (
      `<g data-testid="interval"><line x1="${x(i)}" x2="${x(i)}" y1="${top}" y2="${bottom}" stroke="#2563eb" stroke-width="2"/>${cap(top)}${cap(bottom)}</g>` +
      `<circle cx="${x(i)}" cy="${y(l.value)}" r="2.5" fill="#c2410c"/>` +
      `<text x="${x(i)}" y="${H - pad.bottom + 18}" text-anchor="middle" font-size="12">${escapeHtml(l.group)}</text>`
    );
  });
  const axis = [low, (low + high) / 2, high].map((v) => `<text x="${pad.left - 8}" y="${y(v) + 4}" text-anchor="end" font-size="11">${fmt(v)}</text>`);
  const figure = document.createElement('div');
  figure.innerHTML =
    `<h2>${escapeHtml(name)}</h2><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(name)} per group with its interval">` +
    `<line x1="${pad.left}" x2="${pad.left}" y1="${pad.top}" y2="${H - pad.bottom}" stroke="#94a3b8"/>${axis.join('')}${marks.join('')}</svg>`;
  return figure;
}

const escapeHtml = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
