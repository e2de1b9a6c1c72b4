// What the user's scripts of test/install.long.test.ts do with dpnoise, however they load it
// (aggregate.mjs by import, aggregate.cjs by require): the same aggregate over people.csv through
// DuckDB, over people.json's rows in memory and, given a connection string, over the table people
// through PostgreSQL, each with the generator seeded alike, so that equal totals give equal
// releases. Prints them as JSON.
const { readFileSync } = require('node:fs');

module.exports = function releases({ createBudget, createRng, aggregate }) {
  const [postgres] = process.argv.slice(2);
  const budget = createBudget({ epsilon: 10, delta: 1e-4 });
  const spec = { groupBy: 'region', groups: ['north', 'south'], count: true, mean: { age: [0, 100] } };
  const release = async (table) => (await aggregate({ epsilon: 1, delta: 1e-6, budget, ...spec, table, rng: createRng({ seed: 7 }) })).rows;

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
};
