// The result of an aggregate's query, as every rendering writes it (sql.ts, clickhouse-sql.ts):
// its columns, and each kept row's cell for every bin and quantile leaf measure.
import { LEAVES, type Layout, type Measure } from './layout.js';

/** The cell measures (bins and quantile leaves), with their layout index: each is a column c0, c1, ... of the result. */
export const cellMeasures = (layout: Layout) => [...layout.measures.entries()].filter(([, m]) => m.kind === 'bins' || m.kind === 'leaves');

/** The names of the query's result columns, in order. */
export function resultColumns(layout: Layout): string[] {
  const scalars = [...layout.measures.entries()].filter(([, m]) => m.kind !== 'bins' && m.kind !== 'leaves').map(([k]) => `m${k}`);
  return ['plan', 'gi', ...cellMeasures(layout).map((_, j) => `c${j}`), 'bad', 'valid', ...scalars];
}

/** The SQL (`integer` a cast to a 64-bit integer, `least` the dialect's name of LEAST) of a bin or quantile leaf measure's cell of a valid row. */
export function cellSql(
  m: Measure,
  column: string,
  double: (x: number) => string,
  clipped: (v: string, l: number, u: number) => string,
  integer: (x: string) => string,
  least: string,
): string {
  if (m.kind === 'bins') {
    const x = clipped(column, m.edges[0]!, m.edges.at(-1)!);
    const inner = m.edges.slice(1, -1).map((e) => `CASE WHEN ${x} >= ${double(e)} THEN 1 ELSE 0 END`);
    return inner.length === 0 ? '0' : inner.join(' + ');
  }
  if (m.kind === 'leaves') {
    const x = clipped(column, m.lower, m.upper);
    return `${least}(${LEAVES - 1}, ${integer(`floor(((${x} - ${double(m.lower)}) / (${double(m.upper)} - ${double(m.lower)})) * ${LEAVES})`)})`;
  }
  throw new Error(`dpnoise: internal error: no cells for a ${m.kind} measure.`);
}
