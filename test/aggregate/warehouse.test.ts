// The warehouse path (src/aggregate/warehouse.ts): aggregateSql's query in every dialect against
// golden files (test/fixtures/sql, made by scripts/sql-golden.mjs; BigQuery and Spark SQL reviewed
// against their documentation, not run here), the DuckDB rendering run for real and its result
// released by aggregateFromTotals exactly as aggregate releases the table itself, and every
// mismatch between plan and result refused before anything is spent.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregate, aggregateFromTotals, aggregateSql, DIALECTS } from '../../src/aggregate/index.js';
import { createBudget, createRng } from '../../src/index.js';
import { readTextTable } from '../../src/aggregate/duckdb.js';
import { planOf, readAggregateTarget } from '../../src/aggregate/plan.js';
import { readSpec } from '../../src/aggregate/spec.js';
import { readResultRows } from '../../src/aggregate/sql.js';
import { expectWithheld } from '../helpers.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/sql/${name}`, import.meta.url), 'utf8');
const golden = JSON.parse(fixture('spec.json'));

let instance: DuckDBInstance;
let connection: Awaited<ReturnType<DuckDBInstance['connect']>>;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  // One row per person, so that the totals do not depend on which rows are kept.
  await connection.run(
    "CREATE TABLE people AS SELECT i AS person_id, ['north', 'o''west', 'east'][i % 3 + 1] AS region, (i * 37) % 110 AS age, (i * 7919) % 600000 AS income FROM range(3000) t(i)",
  );
});
afterAll(() => instance.closeSync());

const options = { ...golden.options, table: 'people' };
const privacy = golden.target;

/** A plan file's checksum, as docs/aggregates.md ("Warehouses") defines it: FNV-1a, 64 bits, of its canonical JSON (keys sorted). */
function planChecksum(body: object): string {
  const canonical = (v: unknown): string =>
    Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : typeof v === 'object' && v !== null
        ? `{${Object.keys(v)
            .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
            .join(',')}}`
        : JSON.stringify(v);
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(canonical(body))) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

/** The query's result as a warehouse exports it: a CSV, read back with every value as text. */
async function runAsWarehouse(sql: string): Promise<Record<string, unknown>[]> {
  const path = `/tmp/dpnoise-warehouse-${process.pid}.csv`;
  const query = sql.replace(/^--.*\n/gm, '').replace(/;\s*$/, '');
  await connection.run(`COPY (${query}) TO '${path}' (HEADER)`);
  return (await connection.runAndReadAll(`SELECT * FROM read_csv('${path}', all_varchar = true, header = true)`)).getRowObjectsJS();
}

describe('aggregateSql and aggregateFromTotals', () => {
  it.each(DIALECTS)('renders the %s query as its golden file', (dialect) => {
    expect(aggregateSql({ ...golden.target, ...golden.options, dialect }).sql).toBe(fixture(`${dialect}.sql`));
    expect(aggregateSql({ ...golden.target, ...golden.options, maxRows: 1, dialect }).sql).toBe(fixture(`${dialect}-one-row.sql`));
  });

  it("releases the DuckDB rendering's result exactly as aggregate releases the table (same seed, same figures)", async () => {
    const { sql, plan } = aggregateSql({ ...privacy, ...options, dialect: 'duckdb' });
    const rows = await runAsWarehouse(sql);
    const saved = JSON.parse(JSON.stringify(plan)); // as a file
    const fromTotals = await aggregateFromTotals({ budget: createBudget(privacy), plan: saved, rows, rng: createRng({ seed: 4 }) });
    const direct = await aggregate({
      ...privacy,
      budget: createBudget(privacy),
      ...options,
      table: { connection, table: 'people' },
      rng: createRng({ seed: 4 }),
    });
    expect(fromTotals.table).toEqual(direct.table);
    expect(fromTotals.groups).toEqual(['north', "o'west"]);
  });

  it('refuses, spending nothing, an edited plan, a result of another plan, other columns and an undeclared group', async () => {
    const { sql, plan } = aggregateSql({ ...privacy, ...options, dialect: 'duckdb' });
    const rows = await runAsWarehouse(sql);
    const budget = createBudget(privacy);
    const release = (p: unknown, r: unknown) => aggregateFromTotals({ budget, plan: p as typeof plan, rows: r as typeof rows });
    const edited = { ...plan, options: { ...plan.options, mean: { age: [0, 1000] } } };
    await expect(release(edited, rows)).rejects.toThrow(/does not match its checksum/);
    // A result made under another plan carries that plan's identifier in every row.
    const other = aggregateSql({ ...privacy, ...options, maxRows: 3, dialect: 'duckdb' }).plan;
    await expect(
      release(
        plan,
        rows.map((r) => ({ ...r, plan: other.id })),
      ),
    ).rejects.toThrow(/not made by this plan/);
    await expect(
      release(
        plan,
        rows.map(({ valid, ...rest }) => rest),
      ),
    ).rejects.toThrow(/columns must be those of the plan's query/);
    await expect(release(plan, [...rows, { ...rows[0]!, gi: '7' }])).rejects.toThrow(/a group the plan never declared/);
    await expect(release(plan, [...rows, { ...rows.find((r) => r.c0 !== null)!, c0: '99999' }])).rejects.toThrow(/a cell outside its measure/);
    expect(budget.spent.epsilon).toBe(0);
    await release(plan, rows);
    expect(budget.spent.epsilon).toBeGreaterThan(0.99);
  });

  it('never shows a total of the result: any value of any row that is not a whole number, or rows that are not an array, are refused before the charge, by name', async () => {
    const { sql, plan } = aggregateSql({ ...privacy, ...options, dialect: 'duckdb' });
    const rows = await runAsWarehouse(sql);
    const budget = createBudget(privacy);
    const release = (r: unknown) => () => aggregateFromTotals({ budget, plan, rows: r as typeof rows });
    // Every total, count and flag of every row in turn (rows of totals and rows of cells alike), as text a hostile file could hold.
    const spec = readSpec({ ...plan.options, table: [] });
    const { layout } = planOf(spec, readAggregateTarget({ ...plan.target }));
    const values = Object.keys(rows[0]!).filter((k) => /^(m\d+|valid|bad)$/.test(k));
    expect(values.length).toBeGreaterThan(4);
    for (const row of rows) {
      expect(readResultRows([row], spec, layout, plan.id).size).toBe(1); // each row passes alone
      for (const key of values) {
        for (const secret of ['SECRET-123', '31415.92']) {
          expect(() => readResultRows([{ ...row, [key]: secret }], spec, layout, plan.id)).toThrow(
            /^dpnoise: the aggregated table has a total that is not a whole number/,
          );
        }
      }
    }
    // Through the release, for a row of totals and a row of cells: refused, naming neither the value nor its row.
    for (const at of [rows.findIndex((r) => r.c0 === null && r.c1 === null), rows.findIndex((r) => r.c0 !== null)]) {
      for (const secret of ['SECRET-123', '31415.92']) {
        const tampered = rows.map((r, i) => (i === at ? Object.fromEntries(Object.entries(r).map(([k, v]) => [k, values.includes(k) ? secret : v])) : r));
        await expectWithheld(release(tampered), RangeError, ['aggregated table'], secret === 'SECRET-123' ? ['SECRET', '123'] : ['31415']);
      }
    }
    await expectWithheld(release('SECRET-123'), TypeError, ['`rows` must be'], ['SECRET', '123']);
    expect(budget.spent.epsilon).toBe(0);
  });

  it('refuses, before the charge, a group that is NULL or given twice, a cell given twice, a row of two cells', async () => {
    const { sql, plan } = aggregateSql({ ...privacy, ...options, dialect: 'duckdb' });
    const rows = await runAsWarehouse(sql);
    const budget = createBudget(privacy);
    const release = (r: unknown) => aggregateFromTotals({ budget, plan, rows: r as typeof rows });
    const total = rows.find((r) => r.c0 === null && r.c1 === null)!;
    const cell = rows.find((r) => r.c0 !== null)!;
    await expect(release([...rows, total])).rejects.toThrow(/a group given twice/);
    await expect(release([...rows, cell])).rejects.toThrow(/a cell given twice/);
    await expect(release(rows.map((r) => (r === cell ? { ...r, c1: '0' } : r)))).rejects.toThrow(/a row of two cells/);
    const selecting = aggregateSql({ ...privacy, ...options, groups: undefined, dialect: 'duckdb' });
    const selected = await runAsWarehouse(selecting.sql);
    await expect(aggregateFromTotals({ budget, plan: selecting.plan, rows: selected.map((r, i) => (i === 0 ? { ...r, gi: null } : r)) })).rejects.toThrow(
      /a group that is NULL/,
    );
    expect(budget.spent.epsilon).toBe(0);
  });

  it("keeps a group '' apart from a group 'null' when groups are selected, whatever order the rows come in", async () => {
    await connection.run("CREATE TABLE blanks AS SELECT i AS person_id, ['', 'null'][i % 2 + 1] AS region, 50 AS age, 1000 AS income FROM range(2000) t(i)");
    const selecting = { ...options, table: 'blanks', groups: undefined };
    const { sql, plan } = aggregateSql({ ...privacy, ...selecting, dialect: 'duckdb' });
    const path = `/tmp/dpnoise-warehouse-blanks-${process.pid}.csv`;
    await connection.run(`COPY (${sql.replace(/^--.*\n/gm, '').replace(/;\s*$/, '')}) TO '${path}' (HEADER)`);
    const rows = await readTextTable(path);
    for (const order of [rows, [...rows].reverse()]) {
      const r = await aggregateFromTotals({ budget: createBudget(privacy), plan, rows: order, rng: createRng({ seed: 1 }) });
      expect(r.groups).toEqual(['', 'null']);
    }
  });

  it("pins the plan's layout: a plan file whose layout is not this version's (its checksum right) is refused before the charge", async () => {
    const { plan } = aggregateSql({ ...privacy, ...options, dialect: 'duckdb' });
    expect(plan.layout.map((m) => m.kind)).toContain('sum');
    // Another version's plan: the same options, the sums laid out with another shift, a consistent checksum.
    const { id, ...body } = plan;
    const other = { ...body, layout: body.layout.map((m) => (m.kind === 'sum' ? { ...m, shift: 0 } : m)) };
    const budget = createBudget(privacy);
    await expect(aggregateFromTotals({ budget, plan: { ...other, id: planChecksum(other) } as typeof plan, rows: [] })).rejects.toThrow(
      /lays its result out as another version of dpnoise did/,
    );
    await expect(aggregateFromTotals({ budget, plan: { ...plan, version: 1 } as never, rows: [] })).rejects.toThrow(/version 3/);
    expect(budget.spent.epsilon).toBe(0);
  });

  it("writes every group value as a literal of its dialect: no raw newline inside BigQuery's or Spark's quotes, a backslash escaped", () => {
    const groups = ['line\nbreak', 'tab\tand\r', "quote'back\\slash", 'sep\u2028'];
    for (const dialect of ['bigquery', 'spark'] as const) {
      const { sql } = aggregateSql({ ...privacy, ...options, groups, dialect });
      const body = sql.split('\n').slice(2).join('\n'); // the two comment lines end with a newline
      expect(body.split('\n').every((line) => (line.match(/(?<!\\)'/g) ?? []).length % 2 === 0)).toBe(true);
      expect(body).toContain(String.raw`'line\u000abreak'`);
      expect(body).toContain(String.raw`'quote\'back\\slash'`);
    }
    const { sql } = aggregateSql({ ...privacy, ...options, groups, dialect: 'postgres' });
    expect(sql).toContain(String.raw`E'quote''back\\slash'`);
  });

  it("charges the budget before it reads the totals: an invalid row is paid for, another plan's result is not", async () => {
    const { sql, plan } = aggregateSql({ ...privacy, ...options, dialect: 'duckdb' });
    const rows = await runAsWarehouse(sql);
    expect(golden.options.invalid ?? 'error').toBe('error');
    const charged = createBudget(privacy);
    const invalid = rows.map((r, i) => (i === 0 ? { ...r, bad: '1' } : r));
    await expect(aggregateFromTotals({ budget: charged, plan, rows: invalid })).rejects.toThrow(/a row has a NULL, missing or non-numeric value/);
    expect(charged.spent.epsilon).toBeGreaterThan(0);
    const free = createBudget(privacy);
    await expect(aggregateFromTotals({ budget: free, plan, rows: rows.map((r) => ({ ...r, plan: 'another' })) })).rejects.toThrow(/not made by this plan/);
    expect(free.spent.epsilon).toBe(0);
  });

  it('reads every option once: a getter that changes between reads cannot set the query apart from its plan file', async () => {
    let reads = 0;
    const shifting = {
      ...options,
      mean: {
        get age() {
          reads++;
          return reads === 1 ? [0, 100] : [0, 1];
        },
      },
    };
    const { sql, plan } = aggregateSql({ ...privacy, ...shifting, dialect: 'duckdb' });
    expect(reads).toBe(1);
    expect(plan.options.mean).toEqual({ age: [0, 100] });
    expect(sql).toContain("CAST('100' AS DOUBLE)"); // the bound read once is the query's
    // The plan file too: the checksum covers exactly what is used.
    let planReads = 0;
    const tricky = {
      ...plan,
      get options() {
        planReads++;
        return planReads === 1 ? plan.options : { ...plan.options, mean: { age: [0, 1] } };
      },
    };
    const rows = await runAsWarehouse(sql);
    await aggregateFromTotals({ budget: createBudget(privacy), plan: tricky, rows });
    expect(planReads).toBe(1);
    expect(() => aggregateSql({ ...privacy, ...options, groups: [() => 'north'], dialect: 'duckdb' } as never)).toThrow(TypeError);
  });

  it('refuses a dialect it does not know, and a table that is not a name', () => {
    expect(() => aggregateSql({ ...privacy, ...options, dialect: 'oracle' as never })).toThrow(
      /`dialect` must be one of 'duckdb', 'postgres', 'bigquery', 'spark', 'clickhouse'/,
    );
    expect(() => aggregateSql({ ...privacy, ...options, table: [] as never, dialect: 'spark' })).toThrow(/`table` must be a table name/);
  });
});
