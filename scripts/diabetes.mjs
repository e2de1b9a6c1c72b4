// scikit-learn's diabetes data (examples/data/diabetes.csv, 442 patients) as row objects of
// numbers, for the accuracy scripts and benches that compare dpnoise with its peers on it.
import { readFileSync } from 'node:fs';

/** The rows, each an object of the CSV's columns as numbers. */
export function diabetesRows() {
  const [head, ...lines] = readFileSync(new URL('../examples/data/diabetes.csv', import.meta.url), 'utf8')
    .trim()
    .split('\n');
  const names = head.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [names[i], Number(v)])));
}
