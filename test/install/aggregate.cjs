// The same as aggregate.mjs through require(): dpnoise's CommonJS build, where Node cannot require
// ES modules (before 20.19). The budget and the generator come from require('dpnoise') and are
// used by require('dpnoise/aggregate'), so the two entries must share one copy of dpnoise's state.
const { readFileSync } = require('node:fs');
const { createBudget, createRng } = require('dpnoise');
const { aggregate } = require('dpnoise/aggregate');

const [postgres] = process.argv.slice(2);
const budget = createBudget({ epsilon: 10, delta: 1e-4 });
const spec = { groupBy: 'region', groups: ['north', 'south'], count: true, mean: { age: [0, 100] } };
const release = async (table) => (await aggregate(budget, { epsilon: 1, delta: 1e-6 }, { ...spec, table, rng: createRng({ seed: 7 }) })).rows;

async function main() {
  const file = await release('people.csv');
  const memory = await release(JSON.parse(readFileSync('people.json', 'utf8')));
  const table = postgres === undefined ? undefined : await release({ postgres, table: 'people' });
  return { file, memory, postgres: table, spent: budget.spent.epsilon > 0 };
}

main().then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
