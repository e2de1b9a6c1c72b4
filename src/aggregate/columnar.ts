// Tables read column by column, with no row objects: JavaScript row objects, Apache Arrow tables
// (apache-arrow's Table, what DuckDB-Wasm and most JavaScript data tools hand over) and Arquero
// tables, each recognised by its shape, so that dpnoise depends on neither package. Only the
// columns the spec names are read, each once.
import { describeKind } from '../core/validate.js';
import type { Column, ColumnType } from './dialect.js';

/** A table's rows, column by column: the value of a column in row i (by own property for row objects). */
export interface ColumnReader {
  readonly rows: number;
  column(name: string): (i: number) => unknown;
}

/**
 * An Apache Arrow table (apache-arrow's `Table`), by the members dpnoise reads.
 *
 * @group Aggregates
 */
export interface ArrowTableLike {
  /** How many rows it has. */
  readonly numRows: number;
  /** Its schema. */
  readonly schema: {
    /** Its columns' names and types. */
    readonly fields: readonly ArrowFieldLike[];
  };
  /** A column (a vector), by name. */
  getChild(name: string): ArrowVectorLike | null;
}

/**
 * An Arrow column's name and type, by the members dpnoise reads.
 *
 * @group Aggregates
 */
export interface ArrowFieldLike {
  /** The column's name. */
  readonly name: string;
  /** Its type. */
  readonly type: ArrowTypeLike;
}

/**
 * An Arrow type, by the member dpnoise reads.
 *
 * @group Aggregates
 */
export interface ArrowTypeLike {
  /** Arrow's type id (integers, floats, text, decimals, dictionaries, ...). */
  readonly typeId: number;
}

/**
 * An Arrow vector (a column), by the members dpnoise reads.
 *
 * @group Aggregates
 */
export interface ArrowVectorLike extends Iterable<unknown> {
  /** How many of its values are null. */
  readonly nullCount: number;
  /** Its type. */
  readonly type: ArrowTypeLike;
  /** Its values as one array (a typed array for numbers). */
  toArray(): ArrayLike<unknown>;
}

/**
 * An Arquero table (`ColumnTable`), by the members dpnoise reads.
 *
 * @group Aggregates
 */
export interface ArqueroTableLike {
  /** How many rows it has (after its filter). */
  numRows(): number;
  /** Its columns' names. */
  columnNames(): string[];
  /** A column's values, with the table's filter and order applied. */
  array(name: string): ArrayLike<unknown>;
}

/** Arrow's type ids (apache-arrow's `Type` enum) that dpnoise tells apart. */
const ARROW = { int: 2, float: 3, utf8: 5, decimal: 7, largeUtf8: 20, dictionary: -1 } as const;

export const isArrowTable = (value: unknown): value is ArrowTableLike =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ArrowTableLike).getChild === 'function' &&
  typeof (value as ArrowTableLike).numRows === 'number' &&
  Array.isArray((value as ArrowTableLike).schema?.fields);

export const isArqueroTable = (value: unknown): value is ArqueroTableLike =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ArqueroTableLike).numRows === 'function' &&
  typeof (value as ArqueroTableLike).columnNames === 'function' &&
  typeof (value as ArqueroTableLike).array === 'function';

/** A table of either kind (never an array: its properties are rows, read only after the budget is charged). */
export const isColumnar = (value: unknown): value is ArrowTableLike | ArqueroTableLike =>
  !Array.isArray(value) && (isArrowTable(value) || isArqueroTable(value));

/** An Arrow type as the spec's checks read it: numbers, text, or other. */
function arrowType(type: { readonly typeId: number; readonly dictionary?: { readonly typeId: number } }): ColumnType {
  const id = type.typeId === ARROW.dictionary && type.dictionary ? type.dictionary.typeId : type.typeId;
  if (id === ARROW.int || id === ARROW.float) return 'number';
  if (id === ARROW.decimal) return 'decimal';
  if (id === ARROW.utf8 || id === ARROW.largeUtf8) return 'text';
  return 'other';
}

/** The columns of a table of either kind (its schema: public, as a database table's), with their types where known. */
export function columnarColumns(table: ArrowTableLike | ArqueroTableLike): Column[] {
  if (isArrowTable(table)) return table.schema.fields.map((f) => ({ name: f.name, type: arrowType(f.type) }));
  return table.columnNames().map((name) => ({ name, type: 'unknown' }));
}

/** Refuses an Arrow Decimal column among `names`: Arrow gives its values as words, not numbers. */
export function refuseDecimals(columns: readonly Column[], names: readonly string[]): void {
  const decimal = columns.find((c) => c.type === 'decimal' && names.includes(c.name));
  if (decimal) throw new TypeError(`dpnoise: the Arrow column ${JSON.stringify(decimal.name)} holds decimals; cast it to Float64 first.`);
}

/**
 * A reader of an Arrow table: a numeric column without nulls as its typed array (no copy for one
 * chunk), any other column as the values its iterator gives (null for a null, strings from
 * dictionaries).
 */
function arrowReader(table: ArrowTableLike): ColumnReader {
  return {
    rows: table.numRows,
    column(name) {
      const vector = table.getChild(name)!;
      const values = arrowType(vector.type) === 'number' && vector.nullCount === 0 ? vector.toArray() : Array.from(vector);
      return (i) => values[i];
    },
  };
}

/** A reader of an Arquero table: each column as `array` gives it, the table's filter and order applied. */
function arqueroReader(table: ArqueroTableLike): ColumnReader {
  return {
    rows: table.numRows(),
    column(name) {
      const values = table.array(name);
      return (i) => values[i];
    },
  };
}

/** A reader of a table of either kind. */
export const columnarReader = (table: ArrowTableLike | ArqueroTableLike): ColumnReader => (isArrowTable(table) ? arrowReader(table) : arqueroReader(table));

/** A reader of a table in memory: row objects, or an Arrow or an Arquero table. */
export const memoryReader = (table: readonly unknown[] | ArrowTableLike | ArqueroTableLike): ColumnReader =>
  isColumnar(table) ? columnarReader(table) : objectReader(table as readonly unknown[]);

/**
 * A reader of JavaScript row objects, each checked to be an object first; values by own property
 * only (an inherited Object.prototype.income is never a value).
 */
export function objectReader(rows: readonly unknown[]): ColumnReader {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (typeof row !== 'object' || row === null) throw new TypeError(`dpnoise: \`table[${i}]\` must be a row object; got ${describeKind(row)}.`);
  }
  return {
    rows: rows.length,
    column: (name) => (i) => {
      const row = rows[i] as object;
      return Object.hasOwn(row, name) ? (row as Record<string, unknown>)[name] : undefined;
    },
  };
}
