// How the "aggregate a CSV" page writes numbers, in its tables, charts and budget line alike.

/**
 * Figures for reading: 6 significant digits; whole numbers from 1e5 to 1e12 in full; tiny and huge
 * ones with an exponent, in its shortest form (1e-6, not 1.000e-6).
 */
export const fmt = (x) => {
  if (x !== 0 && (Math.abs(x) >= 1e12 || Math.abs(x) < 1e-3)) return Number(x.toPrecision(6)).toExponential();
  return Math.abs(x) >= 1e5 ? x.toFixed(0) : String(Number(x.toPrecision(6)));
};

/** A line's statistic as the command line names it: count, mean(age), quantile(income, 0.5), histogram(age, [0, 18)). */
export const statisticName = (line) =>
  line.column === undefined ? line.statistic : `${line.statistic}(${line.column}${line.at === undefined ? '' : `, ${line.at}`})`;
