// The "aggregate a CSV" page: reads the chosen file's header (in the page) for its columns, checks
// the inputs, shows the plan (the accuracy table and what the release costs of the session
// budget) before anything is released, charges the session budget, and only then hands the file
// to the worker (demo/aggregate-worker.js), whose release it shows as a table and charts.
import { planAggregate } from '/dist/aggregate/index.js';
import { init } from '/dist/index.js';
import { sessionBudget } from './aggregate-budget.js';
import { charts } from './aggregate-charts.js';
import { fmt } from './aggregate-format.js';
import { statisticsEditor } from './aggregate-statistics.js';
import { showPlan, showResult } from './aggregate-tables.js';

const worker = new Worker('/demo/aggregate-worker.js', { type: 'module' });
const form = document.getElementById('inputs');
const fields = form.elements;
const status = document.getElementById('status');
const button = document.getElementById('release');
const cost = document.querySelector('[data-testid=cost]');
const planBody = document.querySelector('#plan tbody');
const warnings = document.getElementById('warnings');
const statistics = statisticsEditor(document.getElementById('statistics'));
const ready = init(); // dpnoise's WebAssembly, for the plans
let latest = 0;

const showWarnings = (texts) => warnings.replaceChildren(...texts.map((w) => Object.assign(document.createElement('li'), { textContent: w })));

/** A field's value as a number (null when empty and `optional`), or undefined with its error shown beside it. */
function number(name, check, message, optional = false) {
  const text = fields[name].value.trim();
  const x = Number(text);
  const ok = (optional && text === '') || (text !== '' && check(x));
  fields[name].setAttribute('aria-invalid', String(!ok));
  document.getElementById(`${name}-error`).textContent = ok ? '' : message;
  return !ok ? undefined : text === '' ? null : x;
}

const whole = (x) => Number.isInteger(x) && x >= 1;

/**
 * The release asked for, from public inputs only: aggregate()'s spec, the release's privacy and
 * the session budget's; undefined, with each wrong field's error shown, if any is wrong.
 */
function read() {
  const epsilon = number('epsilon', (x) => x > 0 && x <= 50, 'A number above 0, at most 50.');
  const delta = number('delta', (x) => x > 0 && x < 0.5, 'Empty (pure epsilon-DP) or a number above 0, below 0.5.', true);
  const budgetEpsilon = number('budgetEpsilon', (x) => x > 0 && Number.isFinite(x), 'A number above 0.');
  const budgetDelta = number('budgetDelta', (x) => x > 0 && x < 1, 'Empty (pure epsilon-DP) or a number above 0, below 1.', true);
  const unit = fields.unit.value;
  fields.maxGroups.parentElement.hidden = fields.maxRows.parentElement.hidden = !unit;
  const maxGroups = unit ? number('maxGroups', whole, 'Empty (every group) or a whole number from 1.', true) : null;
  const maxRows = unit ? number('maxRows', whole, 'Empty (1) or a whole number from 1.', true) : null;
  const expectedCount = number('expectedCount', (x) => x >= 1, 'Empty or a number from 1.', true);
  const chosen = statistics.read();
  if ([epsilon, delta, budgetEpsilon, budgetDelta, maxGroups, maxRows, expectedCount, chosen].includes(undefined)) return undefined;
  const groups = fields.groups.value
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  const spec = {
    ...(fields.groupBy.value ? { groupBy: fields.groupBy.value } : {}),
    ...(groups.length > 0 ? { groups } : {}),
    ...(unit ? { privacyUnit: unit } : {}),
    ...(maxGroups === null ? {} : { maxGroups }),
    ...(maxRows === null ? {} : { maxRows }),
    count: fields.count.checked,
    units: fields.units.checked,
    // Post-processing of the noisy figures, at no cost in privacy (docs/aggregates.md, "Intervals", "Consistent histograms").
    ...(fields.integerCounts.checked ? { integerCounts: true } : {}),
    ...(fields.consistent.checked ? { consistent: true } : {}),
    ...chosen,
    ...(expectedCount === null ? {} : { expectedCount }),
    invalid: 'drop',
  };
  const pure = (e, d) => (d === null ? { epsilon: e } : { epsilon: e, delta: d });
  return { spec, privacy: pure(epsilon, delta), target: pure(budgetEpsilon, budgetDelta) };
}

const session = sessionBudget(
  {
    line: document.querySelector('[data-testid=budget]'),
    meter: document.getElementById('budget-meter'),
    epsilon: fields.budgetEpsilon,
    delta: fields.budgetDelta,
  },
  () => read()?.target,
  () => ready.then(replan),
);

/** The plan of what the fields ask for, or the reason there is none. */
function planned(asked) {
  if (asked === undefined) return { reason: 'Fix the fields marked.' };
  try {
    return { plan: planAggregate({ ...asked.privacy, ...asked.spec }) };
  } catch (error) {
    return { reason: error.message };
  }
}

/** The plan, shown before any release: the accuracy table, the warnings, and the cost to the session budget. */
function replan() {
  const asked = read();
  const { plan, reason } = planned(asked);
  session.show();
  showPlan(planBody, plan ?? { accuracy: [] }, asked?.spec.expectedCount);
  showWarnings(plan?.warnings ?? []);
  if (!plan) {
    cost.textContent = `No plan: ${reason}`;
    return;
  }
  const { delta } = asked.privacy;
  let after;
  try {
    const spent = session.preview(plan.privacy).spent;
    after = `After it, the session budget will have spent epsilon ${fmt(spent.epsilon)}.`;
  } catch (error) {
    after = error instanceof RangeError ? 'That is beyond the session budget: it would be refused.' : error.message;
  }
  cost.textContent = `Protects ${plan.unit}. This release costs epsilon ${fmt(plan.privacy.epsilon(delta ?? 0))}${delta === undefined ? '' : ` at delta ${fmt(delta)}`}. ${after}`;
}

/** The column names of a CSV header line (quotes removed). */
const headerOf = (line) => line.split(',').map((name) => name.trim().replace(/^"(.*)"$/, '$1'));

function fill(select, names, keep) {
  select.replaceChildren(keep, ...names.map((name) => new Option(name, name)));
}

fields.file.addEventListener('change', async () => {
  const file = fields.file.files[0];
  if (!file) return;
  // Only the first line is read here, in the page, for the column names.
  const first = (await file.slice(0, 65536).text()).split(/\r?\n/)[0];
  const names = headerOf(first);
  fill(fields.groupBy, names, new Option('no groups (one: all)', ''));
  fill(fields.unit, names, new Option('each row', ''));
  statistics.setColumns(names);
  button.disabled = false;
  status.textContent = `${file.name}: ${names.length} columns. Choose the statistics, read the plan, and release.`;
  ready.then(replan);
});
form.addEventListener('input', () => ready.then(replan));
form.addEventListener('change', () => ready.then(replan));
document.getElementById('add-statistic').addEventListener('click', () => statistics.add());
document.getElementById('export-budget').addEventListener('click', () => session.download());

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  await Promise.all([ready, session.loaded]);
  const asked = read();
  const { plan, reason } = planned(asked);
  const file = fields.file.files[0];
  if (!plan || !file) {
    status.textContent = `Not released: ${file ? reason : 'pick a CSV file.'}`;
    return;
  }
  // The budget is charged before the worker is handed the file: a refused release reads nothing.
  try {
    await session.charge(plan.privacy);
  } catch (error) {
    status.textContent = `Not released: ${error.message}`;
    return;
  }
  const id = ++latest;
  button.disabled = true;
  status.textContent = 'Charged to the session budget; reading the file in this page and releasing…';
  worker.postMessage({ id, file, spec: asked.spec, privacy: asked.privacy });
});

worker.onmessage = ({ data }) => {
  if (data.id !== latest) return;
  button.disabled = false;
  if (data.error) {
    status.textContent = `Not released: ${data.error} (the session budget stays charged: the file may have been read).`;
    return;
  }
  const { table, unit, level } = data.result;
  document.getElementById('unit-text').textContent = `(protects ${unit}; ${Math.round(level * 100)}% intervals)`;
  showResult(document.querySelector('#result tbody'), table);
  document.getElementById('charts').replaceChildren(...charts(table));
  showWarnings(data.result.warnings);
  status.textContent = 'Released, and charged to the session budget. done';
};

Promise.all([ready, session.loaded]).then(replan);
