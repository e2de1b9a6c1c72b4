// Every printed dialect parsed by someone else's parser (docs/aggregates.md, "On a cluster"):
// aggregateSql's queries (the golden files of test/fixtures/sql, and the same spec with hostile
// group values and column names) are each one statement of their dialect to an independent
// parser, holding the literals and names expected. BigQuery, PostgreSQL, DuckDB and ClickHouse by
// sqlparser-rs (datafusion-sqlparser-rs 0.62 in WebAssembly, @guanmingchiu/sqlparser-ts); Spark
// SQL by dt-sql-parser's grammar of Spark's own (ANTLR), as sqlparser-rs reads no backslash
// escape in Spark's strings. Parsed, not run: BigQuery and Spark SQL are never run here.
import { readFileSync } from 'node:fs';
import { init, parse } from '@guanmingchiu/sqlparser-ts';
import { SparkSQL } from 'dt-sql-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { aggregateSql, DIALECTS } from '../../src/aggregate/index.js';
import type { DialectName } from '../../src/aggregate/dialect.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/sql/${name}`, import.meta.url), 'utf8');
const golden = JSON.parse(fixture('spec.json'));

/** Group values an attacker (or an unlucky dataset) could declare: quotes, backslashes, control characters, comment markers, unicode, empty. */
const GROUPS = [
  "o'west",
  'back\\slash',
  'line\nbreak',
  'tab\tand\rreturn',
  '-- comment',
  '/* open',
  'close */',
  'é☃\u2028𝄞',
  'quote"double',
  'tick`',
  "a\\'b",
  'a\\',
  '',
];
/** Column names of the same kind (a unit, a group, two values). */
const COLUMNS = { unit: 'per"son`id', group: "re'gion\\", values: ['in\ncome -- x', '/* a */ b'] };

interface Case {
  readonly name: string;
  readonly sql: string;
  readonly plan: string;
  /** String literals the query must hold, as the values they denote. */
  readonly literals: readonly string[];
  /** Names it must hold. */
  readonly names: readonly string[];
}

/** The queries of a dialect: its golden files, and the golden spec with hostile groups and with hostile columns. */
function casesOf(dialect: DialectName): Case[] {
  const print = (options: object, name: string, literals: readonly string[], names: readonly string[]): Case => {
    const { sql, plan } = aggregateSql({ ...golden.target, ...(options as object), dialect });
    return { name, sql, plan: plan.id, literals, names };
  };
  // sqlparser-rs reads no backslash escape in BigQuery's quoted names (BigQuery reads them as in
  // its strings) and then fails: names without a backslash or a backquote there.
  const bare = (name: string) => (dialect === 'bigquery' ? name.replaceAll(/[\\`]/g, '') : name);
  const unit = bare(COLUMNS.unit);
  const group = bare(COLUMNS.group);
  const columns = {
    table: 'analytics.people',
    privacyUnit: unit,
    groupBy: group,
    maxGroups: 1,
    count: true,
    mean: { [COLUMNS.values[0]!]: [0, 100] },
    variance: { [COLUMNS.values[0]!]: [0, 100] },
    quantile: { [COLUMNS.values[1]!]: { bounds: [0, 1], q: 0.5 } },
    diagnostics: true,
  };
  const cases = [
    print(golden.options, 'the golden query', ['north', "o'west"], ['person_id', 'region', 'income', 'age']),
    print({ ...golden.options, maxRows: 1 }, 'the golden query, one row per unit and group', ['north', "o'west"], ['person_id', 'region']),
    print({ ...golden.options, groups: GROUPS }, 'hostile group values', GROUPS, []),
    print({ ...golden.options, groups: GROUPS, maxRows: 1 }, 'hostile group values, one row per unit and group', GROUPS, []),
    print(columns, 'hostile column names, groups selected', [], [unit, group, ...COLUMNS.values]),
  ];
  expect(cases[0]!.sql).toBe(fixture(`${dialect}.sql`));
  expect(cases[1]!.sql).toBe(fixture(`${dialect}-one-row.sql`));
  return cases;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds.
const CONTROL = /[\u0000-\u001f\u007f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the same, and the line and paragraph separators (BigQuery's printer escapes them too).
const BIGQUERY_ESCAPED = /[\u0000-\u001f\u007f\u2028\u2029]/g;
const hex = (c: string, digits: number) => c.charCodeAt(0).toString(16).padStart(digits, '0');

/**
 * How sqlparser-rs 0.62 reads a literal of each dialect: exactly, but for the escapes it does not
 * know, whose backslash it drops (BigQuery's \uXXXX, ClickHouse's \xHH: the letters remain), and
 * names, which it takes verbatim between their quotes (ClickHouse's backslash escapes in them
 * included). Everything else of every value is compared exactly.
 */
const SQLPARSER = {
  bigquery: {
    literal: (v: string) => v.replaceAll(BIGQUERY_ESCAPED, (c) => `u${hex(c, 4)}`),
    name: (n: string) => n.replaceAll(CONTROL, (c) => `\\u${hex(c, 4)}`),
  },
  postgres: { literal: (v: string) => v, name: (n: string) => n },
  duckdb: { literal: (v: string) => v, name: (n: string) => n },
  clickhouse: {
    literal: (v: string) => v.replaceAll(CONTROL, (c) => `x${hex(c, 2)}`),
    name: (n: string) => n.replaceAll('\\', '\\\\').replaceAll(CONTROL, (c) => `\\x${hex(c, 2)}`),
  },
} as const;

/** The string literals and quoted names of a sqlparser-rs tree. */
function leaves(tree: unknown): { literals: string[]; names: string[] } {
  const literals: string[] = [];
  const names: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const o = node as Record<string, unknown>;
    if (typeof o.value === 'string' && typeof o.quote_style === 'string') names.push(o.value);
    for (const [key, value] of Object.entries(o)) {
      if (/^(SingleQuotedString|EscapedStringLiteral|DoubleQuotedString|TripleSingleQuotedString)$/.test(key) && typeof value === 'string')
        literals.push(value);
      walk(value);
    }
  };
  walk(tree);
  return { literals, names };
}

/** Spark SQL's reading of a string literal's escapes (its unescapeSQLString), for those its printer writes: \uXXXX and a backslash before any other character. */
function sparkString(token: string): string {
  return token
    .slice(1, -1)
    .replaceAll(/\\(u[0-9a-fA-F]{4}|[^u])/g, (_, e: string) => (e.length === 5 ? String.fromCharCode(Number.parseInt(e.slice(1), 16)) : e));
}

const PARSER_DIALECT = { bigquery: 'bigquery', postgres: 'postgresql', duckdb: 'duckdb', clickhouse: 'clickhouse' } as const;

beforeAll(async () => {
  await init();
});

describe.each(DIALECTS.filter((d) => d !== 'spark'))('%s, parsed by sqlparser-rs', (dialect) => {
  const reading = SQLPARSER[dialect as keyof typeof SQLPARSER];
  it.each(casesOf(dialect))('$name: one statement, with the literals and names expected', ({ sql, plan, literals, names }) => {
    const statements = parse(sql, PARSER_DIALECT[dialect as keyof typeof PARSER_DIALECT]);
    expect(statements.length).toBe(1);
    const found = leaves(statements);
    for (const value of [plan, ...literals]) expect(found.literals).toContain(reading.literal(value));
    for (const name of names) expect(found.names).toContain(reading.name(name));
  });
});

describe('spark, parsed by the grammar of Spark SQL', () => {
  const spark = new SparkSQL();
  it.each(casesOf('spark'))('$name: one statement, with the literals and names expected', ({ sql, plan, literals, names }) => {
    expect(spark.validate(sql)).toEqual([]);
    expect(spark.splitSQLByStatement(sql)?.length).toBe(1);
    const tokens = spark.getAllTokens(sql).map((t) => t.text ?? '');
    const strings = tokens.filter((t) => t.startsWith("'")).map(sparkString);
    const quoted = tokens.filter((t) => t.startsWith('`')).map((t) => t.slice(1, -1).replaceAll('``', '`'));
    for (const value of [plan, ...literals]) expect(strings).toContain(value);
    for (const name of names) expect(quoted).toContain(name);
  });
});
