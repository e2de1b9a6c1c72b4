// The mean's accuracy with bounds found privately (docs/aggregates.md, "Bounds found privately"):
// the mean absolute error of aggregate's mean, at epsilon 1 (pure), over 300 seeded repetitions,
// on the columns age, bmi, bp and target of scikit-learn's diabetes data, with the lower bound 0
// declared and the upper one found privately (`[0, 'private']`, default share 0.1, and share 0.25),
// beside the same mean with bounds declared (those of scripts/aggregate-accuracy.mjs) and, from
// scripts/private_bounds_diffprivlib.py, diffprivlib's mean with bounds=None (bounds taken from
// the data, not privately). Run after `npm run build`:
//   python3 scripts/private_bounds_diffprivlib.py > /tmp/private-bounds-diffprivlib.json
//   node scripts/private-bounds-accuracy.mjs /tmp/private-bounds-diffprivlib.json   (about 30 s)
import { readFileSync } from 'node:fs';
import { diabetesRows } from './diabetes.mjs';
import { createRng } from 'dpnoise';
import { aggregate } from 'dpnoise/aggregate';

const REPS = 300;
const DECLARED = { age: [0, 100], bmi: [15, 50], bp: [50, 150], target: [0, 400] };
const peer = process.argv[2] === undefined ? undefined : JSON.parse(readFileSync(process.argv[2], 'utf8'));
const rows = diabetesRows();

/** Mean absolute error of the released mean of `column` over REPS seeded runs, and the upper bounds found (how often each). */
async function errorOf(column, bounds, extra = {}) {
  const truth = rows.reduce((s, r) => s + r[column], 0) / rows.length;
  let total = 0;
  const found = new Map();
  for (let rep = 0; rep < REPS; rep++) {
    const r = await aggregate({ epsilon: 1, table: rows, mean: { [column]: bounds }, ...extra, rng: createRng({ seed: `${column}-${rep}` }) });
    total += Math.abs(r.rows[0][`mean(${column})`].value - truth);
    const upper = r.privateBounds?.bounds[column][1];
    if (upper !== undefined) found.set(upper, (found.get(upper) ?? 0) + 1);
  }
  return {
    mae: total / REPS,
    found: [...found]
      .sort((a, b) => a[0] - b[0])
      .map(([u, n]) => `${u}: ${n}`)
      .join(', '),
  };
}

const fmt = (x) => x.toPrecision(3);
console.log(`| column | data range | declared bounds | found privately, share 0.1 | found privately, share 0.25 | diffprivlib, bounds=None |`);
console.log('|---|---|---|---|---|---|');
const found = [];
for (const column of Object.keys(DECLARED)) {
  const declared = await errorOf(column, DECLARED[column]);
  const share10 = await errorOf(column, [0, 'private']);
  const share25 = await errorOf(column, [0, 'private'], { boundsShare: 0.25 });
  const theirs = peer?.columns[column];
  const min = Math.min(...rows.map((r) => r[column]));
  const max = Math.max(...rows.map((r) => r[column]));
  console.log(
    `| ${column} | ${min} to ${max} | ${fmt(declared.mae)} (${DECLARED[column].join(' to ')}) | ${fmt(share10.mae)} | ${fmt(share25.mae)} | ${theirs ? fmt(theirs.mae) : 'not run'} |`,
  );
  found.push(`${column}: share 0.1 found ${share10.found}; share 0.25 found ${share25.found}`);
}
console.log(`\nUpper bounds found (out of ${REPS} runs):\n${found.join('\n')}`);
