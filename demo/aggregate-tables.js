// The tables of the "aggregate a CSV" page: the plan's accuracy table, shown before the release,
// and the private table after it. Each number's cell holds the exact figure in data-value and a
// rounded one for reading; each cell's data-label names its column where a phone stacks the cells.
import { fmt, statisticName } from './aggregate-format.js';

/** What a plan line's sd measures, where it is not the statistic itself (AccuracyLine.of). */
const OF = { value: '', sum: 'of its sum: divide by the count', squares: 'of its sum of squares: divide by the count', rank: 'of its rank, in rows' };

/** A row of cells: each a text, or a number (shown rounded, kept exact in data-value). */
function row(labels, values) {
  const tr = document.createElement('tr');
  values.forEach((v, k) => {
    const td = tr.insertCell();
    td.dataset.label = labels[k];
    if (typeof v === 'number') {
      td.className = 'number';
      td.dataset.value = String(v);
      td.textContent = fmt(v);
    } else td.textContent = v;
  });
  return tr;
}

/** The labels of a table's columns, from its header. */
const labelsOf = (tbody) => Array.from(tbody.parentElement.tHead.rows[0].cells, (th) => th.textContent);

/**
 * The plan's accuracy table: per statistic, its noise, sd and interval half-width, from public
 * inputs only; with `expectedCount` n, a mean's, variance's or quantile's sd in its column's units
 * for a group of n rows (AccuracyLine.valueSd).
 */
export function showPlan(tbody, plan, expectedCount) {
  const labels = labelsOf(tbody);
  const measures = (a) => [OF[a.of], a.valueSd === undefined ? '' : `sd ${fmt(a.valueSd)} at ${expectedCount} rows`].filter(Boolean).join('; ');
  tbody.replaceChildren(...plan.accuracy.map((a) => row(labels, [a.statistic, a.mechanism, a.sd, a.halfWidth, measures(a)])));
}

/** The private table: per group and statistic, the value, its noise's sd (a quantile's rank sd) and its interval. */
export function showResult(tbody, table) {
  const labels = labelsOf(tbody);
  tbody.replaceChildren(
    ...table.map((line) =>
      row(labels, [line.group, statisticName(line), line.value, line.sd === undefined ? `${fmt(line.rankSd)} (rank)` : line.sd, line.low, line.high]),
    ),
  );
}
