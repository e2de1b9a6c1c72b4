// The statistics of the "aggregate a CSV" page beyond count and units: rows of sums, means,
// variances, quantiles and histograms, each of a column with its public bounds (a histogram with
// its bin edges), read into aggregate()'s spec with each row's error shown beside it.

/** Each kind's settings beyond its column: bounds, and the quantile levels or the bin edges. */
const KINDS = {
  sum: { bounds: true },
  mean: { bounds: true },
  variance: { bounds: true },
  quantile: { bounds: true, extra: 'levels', placeholder: '0.5, 0.9' },
  histogram: { bounds: false, extra: 'bin edges', placeholder: '0, 18, 65, 100' },
};

/** A field in a label, as the row lays them out. */
function labelled(text, input, className) {
  const label = document.createElement('label');
  label.className = className ?? '';
  const span = document.createElement('span');
  span.textContent = text;
  label.append(span, input);
  return label;
}

function input(name, type, value) {
  const field = document.createElement('input');
  Object.assign(field, { name, type, value });
  if (type === 'number') field.step = 'any';
  return field;
}

/** The editor of the rows in `list`, offering the columns `names` (the CSV's header). */
export function statisticsEditor(list) {
  let names = [];
  const fillColumns = (select) => {
    const kept = select.value;
    select.replaceChildren(...names.map((name) => new Option(name, name)));
    if (names.includes(kept)) select.value = kept;
  };

  /** Shows the fields the row's kind uses. */
  const showFieldsOf = (statistic) => {
    const kind = KINDS[statistic.querySelector('[name=kind]').value];
    for (const label of statistic.querySelectorAll('.bounds')) label.hidden = !kind.bounds;
    const extra = statistic.querySelector('.extra');
    extra.hidden = kind.extra === undefined;
    extra.querySelector('span').textContent = kind.extra ?? '';
    extra.querySelector('input').placeholder = kind.placeholder ?? '';
  };

  function add() {
    const statistic = document.createElement('div');
    statistic.className = 'statistic';
    const kind = document.createElement('select');
    kind.name = 'kind';
    kind.setAttribute('aria-label', 'statistic');
    kind.replaceChildren(...Object.keys(KINDS).map((k) => new Option(k, k)));
    kind.value = 'mean';
    const column = document.createElement('select');
    column.name = 'column';
    fillColumns(column);
    const remove = document.createElement('button');
    Object.assign(remove, { type: 'button', className: 'remove', textContent: 'remove' });
    remove.addEventListener('click', () => {
      statistic.remove();
      list.dispatchEvent(new Event('input', { bubbles: true })); // the plan changes
    });
    const error = document.createElement('span');
    error.className = 'error';
    statistic.append(
      kind,
      labelled('of', column),
      labelled('between', input('lower', 'number', '0'), 'bounds'),
      labelled('and', input('upper', 'number', '100'), 'bounds'),
      labelled('', input('extra', 'text', ''), 'extra'),
      remove,
      error,
    );
    kind.addEventListener('change', () => showFieldsOf(statistic));
    showFieldsOf(statistic);
    list.append(statistic);
    list.dispatchEvent(new Event('input', { bubbles: true }));
  }

  /**
   * The rows as the spec's `sum`, `mean`, `variance`, `quantile` and `histogram`, or undefined
   * with each wrong row's error shown (a column asked twice for one statistic, bounds out of order,
   * levels or edges that are not numbers).
   */
  function read() {
    const spec = {};
    let ok = true;
    for (const statistic of list.querySelectorAll('.statistic')) {
      const value = (name) => statistic.querySelector(`[name=${name}]`).value;
      const kind = value('kind');
      const column = value('column');
      const lower = Number(value('lower'));
      const upper = Number(value('upper'));
      const numbers = value('extra')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
        .map(Number);
      const problem =
        column === ''
          ? 'Pick a CSV file for its columns.'
          : spec[kind]?.[column] !== undefined
            ? `${kind} of ${column} is asked for twice.`
            : KINDS[kind].bounds && !(value('lower') !== '' && value('upper') !== '' && Number.isFinite(lower) && upper > lower)
              ? 'Bounds: two numbers, the second above the first.'
              : KINDS[kind].extra && (numbers.length === 0 || numbers.some(Number.isNaN))
                ? `The ${KINDS[kind].extra}: numbers separated by commas.`
                : '';
      statistic.querySelector('.error').textContent = problem;
      if (problem) {
        ok = false;
        continue;
      }
      spec[kind] ??= {};
      spec[kind][column] = kind === 'quantile' ? { bounds: [lower, upper], q: numbers } : kind === 'histogram' ? { bins: numbers } : [lower, upper];
    }
    return ok ? spec : undefined;
  }

  return {
    add,
    read,
    /** Offers the columns of a newly picked file in every row. */
    setColumns(header) {
      names = header;
      for (const select of list.querySelectorAll('[name=column]')) fillColumns(select);
    },
  };
}
