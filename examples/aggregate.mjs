// Private statistics of a real table: scikit-learn's diabetes data (442 patients), per sex, read
// from its CSV by DuckDB. A budget of epsilon 2 holds two releases; a third is refused before any
// row is read. Each figure comes with the standard deviation of its noise and a 95% interval.
// Run: node examples/aggregate.mjs   (after `npm ci`; DuckDB is @duckdb/node-api)
import { createBudget } from 'dpnoise';
import { aggregate, planAggregate } from 'dpnoise/aggregate';

const table = new URL('data/diabetes.csv', import.meta.url).pathname;
const budget = createBudget({ epsilon: 2, delta: 1e-6 });
const spec = {
  table,
  groupBy: 'sex', // 1 or 2 in this data set
  groups: [1, 2],
  count: true,
  mean: { age: [0, 100], bmi: [15, 50], target: [0, 400] },
  quantile: { target: { bounds: [0, 400], q: 0.5 } },
};
const privacy = { epsilon: 1, delta: 1e-6 };

// What the release will cost and how accurate it will be, before any row is read.
const plan = planAggregate({ ...privacy, ...spec });
console.log(`Protects ${plan.unit}.`);
for (const a of plan.accuracy) console.log(`  ${a.statistic.padEnd(18)} ${a.mechanism} noise, sd ${a.sd.toPrecision(3)} (of its ${a.of})`);

const r = await aggregate({ ...privacy, budget, ...spec, invalid: 'error' });
const fmt = (x) => x.toFixed(2).padStart(9);
console.log('\ngroup  statistic              released     sd               95% interval');
for (const line of r.table) {
  const name = `${line.statistic}${line.column ? `(${line.column}${line.at ? `, ${line.at}` : ''})` : ''}`;
  // A quantile's sd is of its rank, in rows.
  const sd = line.sd === undefined ? `${fmt(line.rankSd)} (rank)` : `${fmt(line.sd)}       `;
  console.log(`${line.group.padEnd(6)} ${name.padEnd(22)} ${fmt(line.value)} ${sd}   [${fmt(line.low)}, ${fmt(line.high)}]`);
}
for (const warning of r.warnings) console.log(`warning: ${warning}`);
console.log(`\nSpent epsilon ${budget.spent.epsilon.toFixed(4)} of ${budget.total.epsilon} (delta ${budget.total.delta}).`);

await aggregate({ epsilon: 0.9, delta: 1e-6, budget, ...spec });
console.log(`A second release: spent ${budget.spent.epsilon.toFixed(4)}.`);
try {
  await aggregate({ ...privacy, budget, ...spec });
} catch (error) {
  console.log(`A third is refused: ${error.message}`);
}
