// Entry point of `npm run bench` (which builds dist/ first): runs every benchmark group against
// the BUILT package (import 'dpnoise', never src/) and its baselines, prints the tables, and
// rewrites bench/RESULTS.md with them and a description of the machine.
//
//   node bench/run.mjs              all groups; rewrites bench/RESULTS.md
//   node bench/run.mjs calib ...    only the groups whose title contains one of the words
//                                   (case-insensitive); prints only, RESULTS.md is kept
//   node bench/run.mjs calib --write   the same, and replaces (or appends) those groups'
//                                   sections in bench/RESULTS.md, each marked as run alone
//
// Adding a group: write bench/<group>.mjs exporting
//   export const title = 'Samplers';
//   export async function run(ctx) { ...; return [table, ...]; }
// where a table is { heading, text?, columns: string[], rows: string[][], notes?: string[] }
// (cells are strings; bench/format.mjs has fmt/times/NA), and add its path to GROUPS below.
// ctx gives: measure(fn, options) and measureEach(fns, options) (bench/timing.mjs; interleave
// functions you compare), python(request, { script, command }) (one run of a bench/ script,
// bench/python_baseline.py with python3 by default; {available: false, reason} when the
// interpreter or a module is missing),
// log(message), check(condition, message) (throws on a failed sanity check), thp (the
// transparent-huge-pages mode, which matters for large fresh arrays). python3 runs once for
// the machine description, then once per group that asks for it.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gaussianMu } from 'dpnoise';
import * as baseline from './baseline.mjs';
import { measure, measureEach, sinkValue } from './timing.mjs';

const GROUPS = [
  './calibrate.mjs',
  './samplers.mjs',
  './in-place.mjs',
  './correlated.mjs',
  './grid.mjs',
  './staircase.mjs',
  './side-channel.mjs',
  './builds.mjs',
  './parallel.mjs',
  './bundles.mjs',
  './accountant.mjs',
  './bounds.mjs',
  './allocation.mjs',
  './aggregate.mjs',
  './tables.mjs',
  './clickhouse.mjs',
  './quantiles.mjs',
  './counts.mjs',
  './training.mjs',
  './training-accuracy.mjs',
];

const here = dirname(fileURLToPath(import.meta.url));
const started = Date.now();

// The pure-JS baseline must compute the same mu0 as the package, or the comparison is not honest.
check(Math.abs(baseline.gaussianMu(0.5, 1e-6) / gaussianMu(0.5, 1e-6) - 1) < 1e-9, 'baseline mu0(0.5, 1e-6) disagrees with dpnoise');

function check(condition, message) {
  if (!condition) throw new Error(`bench sanity check failed: ${message}`);
}

function log(message) {
  process.stderr.write(`${message}\n`);
}

/** Runs bench/<script> once with `request` on stdin; never throws. */
function python(request, { script = 'python_baseline.py', command = 'python3' } = {}) {
  const r = spawnSync(command, [join(here, script)], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: 600_000,
  });
  if (r.error) return { available: false, reason: `${command}: ${r.error.code ?? r.error.message}` };
  if (r.status !== 0) {
    const last = (r.stderr || '').trim().split('\n').pop();
    return { available: false, reason: `${script} exited with ${r.status ?? r.signal}: ${last}` };
  }
  try {
    return JSON.parse(r.stdout);
  } catch {
    return { available: false, reason: `${script} printed no JSON` };
  }
}

/** The machine description, as [label, text] rows; also sets ctx.thp. */
function machine() {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) cpu = line.split(':').slice(1).join(':').trim();
  } catch {
    /* not Linux: keep os.cpus() */
  }
  const py = python({ tasks: [{ id: 'versions', kind: 'versions' }] });
  const pyText = py.available ? `Python ${py.versions.python}, NumPy ${py.versions.numpy}, SciPy ${py.versions.scipy}` : `n/a (${py.reason})`;
  let simd = 'unknown';
  try {
    simd = WebAssembly.validate(readFileSync(join(here, '..', 'dist', 'dpnoise-simd.wasm'))) ? 'SIMD build' : 'scalar build (no WebAssembly SIMD)'; // what embeddedBytes() picks
  } catch {
    /* dist layout changed */
  }
  let thp;
  try {
    thp = /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1];
  } catch {
    /* not Linux */
  }
  ctx.thp = thp;
  const pkg = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8'));
  return [
    ['CPU', cpu],
    ['Cores', `${os.cpus().length} logical`],
    ['Memory', `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; transparent huge pages: ${thp ?? 'unknown'}`],
    ['OS', `${os.type()} ${os.release()} ${os.arch()}`],
    ['Node', `${process.version} (V8 ${process.versions.v8})`],
    ['Python', pyText],
    ['dpnoise', `${pkg.version}, ${simd} (what the package loads on this engine)`],
    [
      'Date',
      new Date()
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC'),
    ],
  ];
}

/** Markdown cell or note as plain text: drops **bold**, *emphasis* and `code` marks. */
const plain = (cell) =>
  String(cell)
    .replace(/\*\*/g, '')
    .replace(/\*([^*\s][^*]*?)\*/g, '$1')
    .replace(/`/g, '');

function textTable({ columns, rows }) {
  const all = [columns, ...rows].map((r) => r.map(plain));
  const widths = columns.map((_, j) => Math.max(...all.map((r) => r[j]?.length ?? 0)));
  const line = (r) => r.map((c, j) => (j === 0 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join('  ');
  return [line(all[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}

function markdownTable({ columns, rows }) {
  const esc = (c) => String(c).replace(/\|/g, '\\|');
  return [
    `| ${columns.map(esc).join(' | ')} |`,
    `|${columns.map((_, j) => (j === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

const args = process.argv.slice(2);
const write = args.includes('--write');
const filters = args.filter((a) => a !== '--write').map((a) => a.toLowerCase());
const ctx = { measure, measureEach, python, log, check, thp: undefined };
const description = machine();
log(`${description.map(([k, v]) => `${k}: ${v}`).join('\n')}\n`);

const sections = [];
for (const path of GROUPS) {
  const group = await import(path);
  if (filters.length && !filters.some((f) => group.title.toLowerCase().includes(f))) continue;
  log(`${group.title} ...`);
  const t0 = Date.now();
  const tables = await group.run(ctx);
  const seconds = (Date.now() - t0) / 1e3;
  for (const table of tables) {
    console.log(`\n== ${group.title}: ${plain(table.heading)}\n\n${textTable(table)}`);
    for (const note of table.notes ?? []) console.log(`  ${plain(note)}`);
  }
  sections.push({ title: group.title, tables, seconds });
}

const total = (Date.now() - started) / 1e3;
console.log(`\nbench/run.mjs took ${total.toFixed(0)} s (groups: ${sections.map((s) => `${s.title} ${s.seconds.toFixed(0)} s`).join(', ')}).`);
if (!Number.isFinite(sinkValue())) log('(sink is not finite; a benchmark returned NaN)');

/** A group's section of RESULTS.md, as lines; `preface` (optional) goes under its title. */
function sectionLines({ title, tables }, preface) {
  return [
    `## ${title}`,
    '',
    ...(preface ? [preface, ''] : []),
    ...tables.flatMap((t) => [
      `### ${t.heading}`,
      '',
      ...(t.text ? [t.text, ''] : []),
      markdownTable(t),
      '',
      ...(t.notes?.length ? [...t.notes.map((n) => `- ${n}`), ''] : []),
    ]),
  ];
}

const resultsPath = join(here, 'RESULTS.md');
if (filters.length && write) {
  // Replace each group's section (from its "## " heading to the next) or append it; the rest of the
  // file, Machine included, stays from the last full run, so the section says where it ran.
  const m = Object.fromEntries(description);
  let md = readFileSync(resultsPath, 'utf8');
  for (const section of sections) {
    const preface =
      `Run alone with \`node bench/run.mjs ${args.join(' ')}\` (${section.seconds.toFixed(0)} s) on ${m.Date}: ` +
      `${m.CPU}, ${m.Cores}, Node ${m.Node}, dpnoise ${m.dpnoise}. The other sections come from the run described under Machine.`;
    const text = sectionLines(section, preface).join('\n');
    const start = md.indexOf(`\n## ${section.title}\n`);
    const end = start < 0 ? -1 : md.indexOf('\n## ', start + 1);
    if (start < 0) md = `${md.trimEnd()}\n\n${text}`;
    else md = md.slice(0, start + 1) + text + (end < 0 ? '' : md.slice(end));
  }
  writeFileSync(resultsPath, md);
  console.log(`Wrote the section(s) ${sections.map((s) => s.title).join(', ')} of bench/RESULTS.md.`);
} else if (filters.length) {
  console.log('Filtered run: bench/RESULTS.md not rewritten (add --write to replace these sections in it).');
} else {
  const md = [
    '# dpnoise benchmarks',
    '',
    `Regenerate with \`npm run bench\` (builds dist/, then runs bench/run.mjs, which rewrites this file; ` +
      `the last run took ${total.toFixed(0)} s plus the build). All figures are medians of 5 to 9 timed batches ` +
      `after a warm-up (bench/timing.mjs; the batches of implementations compared with each other are interleaved), measured against the built package on the machine below, ` +
      `unless a section says otherwise; ` +
      `compare absolute numbers only between runs on the same machine. Ratios compare implementations within one run.`,
    '',
    '## Machine',
    '',
    ...description.map(([k, v]) => `- ${k}: ${v}`),
    '',
    ...sections.flatMap((section) => sectionLines(section)),
  ].join('\n');
  writeFileSync(resultsPath, md);
  console.log('Wrote bench/RESULTS.md.');
}
