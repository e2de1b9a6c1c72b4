// Fails when a committed generated file is not what its generator writes now: runs the generators
// of `npm run generate` into a temporary directory and compares every file byte for byte.
// Needs python3 and the mpmath of scripts/requirements.txt. Run by test/generated.long.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Each generator, the directory it writes by default and the files it writes there (package.json's `generate` runs them). */
const generators = [
  { script: 'scripts/ziggurat.py', dir: 'assembly/noise', files: ['ziggurat.ts'] },
  { script: 'scripts/fixtures.py', dir: 'test/fixtures', files: ['special.json', 'privacy.json', 'calibrate.json'] },
];

/** The 1-based line of the first difference and both versions of it, cut to 50 characters either side of the first differing column and quoted (so that a stray \\r shows). */
function firstDifference(committed, generated) {
  const a = committed.split('\n');
  const b = generated.split('\n');
  let line = 0;
  while (a[line] === b[line]) line++;
  const x = a[line];
  const y = b[line];
  let column = 0;
  while (x !== undefined && y !== undefined && x[column] === y[column]) column++;
  const cut = (s) =>
    s === undefined
      ? '(end of file)'
      : (column > 50 ? '...' : '') + JSON.stringify(s.slice(Math.max(0, column - 50), column + 50)) + (s.length > column + 50 ? '...' : '');
  return { line: line + 1, committed: cut(x), generated: cut(y) };
}

/** What differs between the committed files and a run of every generator into `out`, or why a generator did not run. */
function check(out) {
  const problems = [];
  for (const { script, dir, files } of generators) {
    const target = join(out, dir);
    const run = spawnSync('python3', [script, '--out', target], { cwd: root, encoding: 'utf8' });
    if (run.error) return { failed: `${script}: cannot run python3 (${run.error.message}); the generators need Python >= 3.9 and scripts/requirements.txt.` };
    if (run.status !== 0) return { failed: `${run.stdout}${run.stderr}${script} failed (exit status ${run.status}).` };
    const extra = readdirSync(target).filter((name) => !files.includes(name));
    if (extra.length > 0) problems.push(`${script} also writes ${extra.join(', ')}: add it to scripts/check-generated.mjs.`);
    for (const name of files) {
      const path = `${dir}/${name}`;
      if (!existsSync(join(root, path))) {
        problems.push(`${path} is missing.`);
        continue;
      }
      const committed = readFileSync(join(root, path));
      const generated = readFileSync(join(target, name));
      if (committed.equals(generated)) continue;
      const d = firstDifference(committed.toString('utf8'), generated.toString('utf8'));
      problems.push(`${path} is not what ${script} writes; first difference on line ${d.line}:\n  committed: ${d.committed}\n  generated: ${d.generated}`);
    }
  }
  return { problems };
}

const out = mkdtempSync(join(tmpdir(), 'dpnoise-generated-'));
let result;
try {
  result = check(out);
} finally {
  rmSync(out, { recursive: true, force: true });
}
if (result.failed) {
  console.error(result.failed);
  process.exit(1);
}
if (result.problems.length > 0) {
  console.error(`${result.problems.join('\n')}\nRun \`npm run generate\` and commit the result (with the mpmath of scripts/requirements.txt).`);
  process.exit(1);
}
console.log(`Generated files up to date: ${generators.flatMap(({ dir, files }) => files.map((name) => `${dir}/${name}`)).join(', ')}.`);
