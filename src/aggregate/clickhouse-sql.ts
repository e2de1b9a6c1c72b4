// The aggregate's query in ClickHouse (docs/aggregates.md, "On a cluster"): the same clipping,
// contribution bounding and totals as sql.ts, written for what ClickHouse 18.16 has (no window
// functions, no CTE tables, no GROUPING SETS) and for a Distributed table. The first level of
// aggregation reads the table itself, so that each shard aggregates its own rows and only its
// partial states travel: per unit and group, the kept rows and a random key of the group, as
// arg_min (maxRows 1) or the least random keys (maxRows > 1). Those states merge on the server
// that was asked (the initiator) however the table is sharded, so a unit's rows on two shards are
// bounded together; then per unit its groups, then per group the totals.
import { cellMeasures, cellSql, resultColumns } from './columns.js';
import { type Column, type ColumnType, DIALECT } from './dialect.js';
import { type Layout, perRowOf } from './layout.js';
import { type Spec, valueColumns } from './spec.js';
import { sumQuantum } from './totals.js';

const dialect = DIALECT.clickhouse;
const { identifier, text } = dialect;

/** The least positive normal double: ClickHouse's parser refuses a literal below it. */
const LEAST_NORMAL = 2 ** -1022;

/** A double as a literal ClickHouse reads exactly (strtod): its shortest text, a subnormal as a product of two normals. */
export function clickhouseDouble(x: number): string {
  if (x !== 0 && Math.abs(x) < LEAST_NORMAL) return `(toFloat64(${x * 2 ** 600}) * toFloat64(${2 ** -600}))`;
  return `toFloat64(${Object.is(x, -0) ? '-0.' : String(x)})`;
}

/**
 * A prefix for the query's own names that no column it reads starts with: ClickHouse resolves a
 * name to an alias before a column, so an alias named as a column would replace it.
 */
function prefixOf(used: readonly string[]): string {
  let prefix = 'dpnoise_';
  while (used.some((c) => c.startsWith(prefix))) prefix = `_${prefix}`;
  return prefix;
}

/**
 * The query over `from` (a table, or a Distributed table over shards), whose `columns` decide how
 * a value is read; `planId` is written in every result row. Its result has the columns and rows
 * of sql.ts's aggregateQuery (resultColumns), every value non-NULL (a cell of a row of totals is
 * ''), so that the same reader takes it from the engine or from a CSV file.
 */
export function clickhouseQuery(spec: Spec, layout: Layout, columns: readonly Column[], from: string, planId: string): string {
  const names = valueColumns(spec);
  const used = [spec.unit, spec.groupBy, ...names].filter((c): c is string => c !== undefined);
  const p = prefixOf(used);
  const typeOf = (name: string): ColumnType => columns.find((c) => c.name === name)?.type ?? 'unknown';
  const cell = (name: string) => `s.${identifier(name)}`;
  const double = clickhouseDouble;
  // NaN fails both comparisons; a NULL makes the test NULL, read as not finite.
  const finite = (v: string) => `ifNull(${v} > -inf AND ${v} < inf, 0)`;
  const clipped = (v: string, lower: number, upper: number) => `least(greatest(${v}, ${double(lower)}), ${double(upper)})`;

  // The row: unit, group (a declared group's index, or the group's value), values as read (v),
  // the same made finite (w: an invalid row's are never counted, but every branch is computed),
  // and `bad`. Written out where used, not named in WITH (which independent parsers of ClickHouse
  // do not take): ClickHouse computes an expression written twice once, rand64(1) included.
  const unit = spec.unit === undefined ? undefined : cell(spec.unit);
  let group = 'toInt64(0)';
  if (spec.groupBy !== undefined) {
    const type = typeOf(spec.groupBy);
    const byValue = spec.groups === undefined ? type === 'number' || type === 'decimal' : spec.groupNumbers !== undefined;
    const read = dialect.number(cell(spec.groupBy), type);
    // Adding zero makes -0 the group 0, as in JavaScript.
    const key = byValue
      ? spec.groups === undefined
        ? `if(${finite(read)}, ${read} + 0., NULL)`
        : read
      : type === 'text'
        ? cell(spec.groupBy)
        : `toString(${cell(spec.groupBy)})`;
    if (spec.groups === undefined) group = key;
    else {
      const literals = spec.groupNumbers?.map(double) ?? spec.groups.map(text);
      group = `toInt64(nullIf(indexOf([${literals.join(', ')}], ${key}), 0)) - 1`;
    }
  }
  // The grouping keys are named in the SELECT list: a Distributed table's shards name a key
  // defined in WITH by its expression, which the initiator then does not find.
  const keys = [...(unit === undefined ? [] : [`${unit} AS ${p}u`]), `${group} AS ${p}g`];
  const read = names.map((name) => dialect.number(cell(name), typeOf(name)));
  const invalid = [...(unit === undefined ? [] : [`isNull(${unit})`]), ...read.map((x) => `NOT ${finite(x)}`)];
  /** The row as the table gives it. */
  const tableRow = {
    bad: invalid.length === 0 ? 'toUInt8(0)' : `toUInt8(${invalid.join(' OR ')})`,
    w: read.map((x) => `if(${finite(x)}, ifNull(${x}, 0.), 0.)`),
  };
  /** The row as a kept tuple r (rk, bad, group, w0, w1, ...) gives it. */
  const keptRow = { bad: 'tupleElement(r, 2)', w: names.map((_, i) => `tupleElement(r, ${i + 4})`) };

  // The totals' level: each row once for the group's totals (set 0) and once per cell measure
  // (set j + 1, cell c), so that one GROUP BY gives what GROUPING SETS would, every total from
  // the same rows.
  const cells = cellMeasures(layout);
  const totals = (row: { bad: string; w: readonly string[] }, key: string, source: string, where: string) => {
    const v = (column: string) => row.w[names.indexOf(column)]!;
    const good = `NOT ${row.bad}`;
    const cellOf = cells.map(
      ([, m]) => `if(${row.bad}, -1, ${cellSql(m, v((m as { column: string }).column), double, clipped, (x) => `toInt64(${x})`, 'least')})`,
    );
    const sets = [
      cells.length === 0 ? `0 AS ${p}set` : `arrayJoin(range(${cells.length + 1})) AS ${p}set`,
      cells.length === 0 ? `toInt64(-2) AS ${p}c` : `multiIf(${cellOf.map((c, j) => `${p}set = ${j + 1}, ${c}`).join(', ')}, toInt64(-2)) AS ${p}c`,
    ];
    const measures = layout.measures.flatMap((m, k) => {
      const as = ` AS ${p}m${k}`;
      if (m.kind === 'count') return [`countIf(${good})${as}`];
      if (m.kind === 'units') return [`${unit === undefined ? `countIf(${good})` : `uniqExactIf(${p}u, ${good})`}${as}`];
      if (m.kind === 'sum') {
        // Each term is at most 2^25 quanta: an Int64 sum is exact below 2^38 rows.
        const term = `toInt64(floor((${clipped(v(m.column), m.lower, m.upper)} - ${double(m.shift)}) / ${double(sumQuantum(m))} + 0.5))`;
        return [`sumIf(${term}, ${good})${as}`];
      }
      if (m.kind === 'squares') {
        const d = `(${clipped(v(m.column), m.lower, m.upper)} - ${double(m.shift)})`;
        return [`sumIf(toInt64(floor((${d} * ${d} - ${double(perRowOf(m))}) / ${double(sumQuantum(m))} + 0.5)), ${good})${as}`];
      }
      if (m.kind === 'dropped') return [`countIf(${row.bad}${unit === undefined ? '' : ` AND isNotNull(${p}u)`})${as}`];
      if (m.kind === 'clipped') return [`countIf(${good} AND (${v(m.column)} < ${double(m.lower)} OR ${v(m.column)} > ${double(m.upper)}))${as}`];
      return [];
    });
    return `SELECT ${key}, ${sets.join(', ')}, max(${row.bad}) AS ${p}bad, countIf(${good}) AS ${p}valid, ${measures.join(', ')}\nFROM ${source}${where} GROUP BY ${p}g, ${p}set, ${p}c`;
  };

  let inner: string;
  if (unit === undefined) {
    // No unit: every row counts, and the shards total their own rows.
    inner = totals(tableRow, keys.at(-1)!, `${from} AS s`, ` WHERE isNotNull(${p}g)`);
  } else {
    // Per unit and group (on the shards, merged on the initiator): up to maxRows valid rows, those
    // of least random key rk (maxRows 1: each value's argMin at the least key, a fixed-size state
    // per column, all read at the one row of that key, which ClickHouse draws once per row); as
    // many rows standing for its invalid rows as it keeps (up to maxRows: they are counted, never
    // read); and the group's own random key (another draw, at the row of least rk: uniform
    // whatever the group's number of rows), by which the unit's groups are chosen. Each kept row
    // is a tuple (rk, bad, group, w0, w1, ...).
    const rk = 'rand64(1)';
    const good = `NOT ${tableRow.bad}`;
    const valid =
      spec.maxRows === 1
        ? `arraySlice([(${['toUInt64(0)', 'toUInt8(0)', `${p}g`, ...tableRow.w.map((x) => `argMinIf(${x}, ${rk}, ${good})`)].join(', ')})], 1, countIf(${good}))`
        : `arraySlice(arraySort(groupArrayIf((${[rk, 'toUInt8(0)', `${p}g`, ...tableRow.w].join(', ')}), ${good})), 1, ${spec.maxRows})`;
    const standIn = `(${['toUInt64(0)', 'toUInt8(1)', `${p}g`, ...tableRow.w.map(() => '0.')].join(', ')})`;
    const invalidRows = `arrayResize([${standIn}], least(countIf(${tableRow.bad}), ${spec.maxRows}), ${standIn})`;
    const choosing = spec.groups === undefined || spec.maxGroups < spec.groups.length;
    // The group's key and whether it has a valid row, only where the unit's groups are chosen.
    const forChoice = choosing ? `, countIf(${good}) > 0 AS ${p}good, argMin(rand64(2), ${rk}) AS ${p}key` : '';
    const perGroup = `SELECT ${keys.join(', ')}, arrayConcat(${valid}, ${invalidRows}) AS ${p}rows${forChoice}\nFROM ${from} AS s WHERE isNotNull(${p}g) GROUP BY ${p}u, ${p}g`;
    let kept = perGroup;
    let where = '';
    if (choosing) {
      // Per unit: maxGroups of its groups, of least key among those with a valid row (or, when
      // dropped rows are counted, among all of its groups); the rows of the others are left out
      // (but for their invalid rows, which decide only whether the group had one).
      const dropping = layout.measures.some((m) => m.kind === 'dropped');
      const candidate = dropping ? `isNotNull(${p}u)` : `${p}good`;
      const chosen = `arraySlice(arrayMap(e -> tupleElement(e, 2), arraySort(groupArrayIf((${p}key, ${p}g), ${candidate}))), 1, ${spec.maxGroups})`;
      // Filtered after ARRAY JOIN, not in a lambda: ClickHouse 18.16 drops a subquery's column
      // that only a lambda reads.
      where = ` WHERE has(${p}chosen, tupleElement(r, 3))${dropping ? '' : ' OR tupleElement(r, 2) = 1'}`;
      kept = `SELECT ${p}u, groupArrayArray(${p}rows) AS ${p}rows, ${chosen} AS ${p}chosen\nFROM (${perGroup}) GROUP BY ${p}u`;
    }
    inner = totals(keptRow, `tupleElement(r, 3) AS ${p}g`, `(${kept}) ARRAY JOIN ${p}rows AS r`, where);
  }

  const expressions = new Map<string, string>([
    ['plan', text(planId)],
    ['gi', `${p}g`],
    ['bad', `${p}bad`],
    ['valid', `${p}valid`],
  ]);
  cells.forEach((_, j) => {
    expressions.set(`c${j}`, `if(${p}set = ${j + 1}, toString(${p}c), '')`);
  });
  layout.measures.forEach((m, k) => {
    if (m.kind !== 'bins' && m.kind !== 'leaves') expressions.set(`m${k}`, `${p}m${k}`);
  });
  const select = resultColumns(layout).map((name) => `${expressions.get(name)} AS ${name}`);
  return `SELECT ${select.join(', ')}\nFROM (${inner})`;
}
