// What a user installs works as written (README, "Install"): the package as `npm pack` makes it,
// installed with this npm into empty projects, once by the README's own install lines in their
// order and once with the peers (@duckdb/node-api, pg, @tensorflow/tfjs) installed first; a later, unrelated install
// must work too, and `npm ls` must find the tree valid. Then, from the first project, a private
// training run (dpnoise/tfjs) by import and by require(), and one aggregate
// through DuckDB (a CSV file) and over rows in memory, by import and by require() on this Node and
// on Node 20.0.0 (which cannot require ES modules: require('dpnoise/aggregate') needs the CommonJS
// build), and one through PostgreSQL where its server binaries are installed.
//
// The peers come from the registry as a user gets them, the newest (--prefer-offline: `npm ci`
// left the packages in npm's cache). Why package.json's peer range for @duckdb/node-api is "*":
// every version of it is a prerelease (1.5.6-r.1), and npm (its arborist, dep-valid.js) takes "*"
// as met by any version but tests any other range with semver without prereleases, where a
// prerelease meets a range only if one of its comparators names a prerelease of the same
// major.minor.patch. So no range that states a minimum holds DuckDB's next releases: ">=1.1.0"
// failed the README's `npm install @duckdb/node-api` (ETARGET: no matching version) and, with
// DuckDB installed first, npm removed it when dpnoise came; ">=1.2.1-alpha.17" (DuckDB's first
// usable release) made npm install that old version, or refuse dpnoise (ERESOLVE) where a newer
// one was installed first. The minimum is checked when DuckDB is opened (src/aggregate/duckdb.ts).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBinaries, startPostgres } from '../scripts/postgres-server.mjs';
import { binary, NODE20 } from './runtimes/runtime.js';

const root = new URL('..', import.meta.url).pathname;
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];
const bin = postgresBinaries();
if (!bin)
  console.warn('test/install.long.test.ts: no PostgreSQL under /usr/lib/postgresql (Debian package postgresql; .ci/run installs it): its aggregate skipped.');

/** Runs a command and returns its standard output; an Error with the command and its output if it fails. */
function run(cwd: string, command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' }, timeout: 180_000 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`\`${[command, ...args].join(' ')}\` in ${cwd} failed:\n${stderr}${stdout}`);
  }
}

/** The `npm install` commands of README's "Install" block, in order, as npm's arguments, the tarball's path replaced by `tarball`. */
function readmeInstalls(tarball: string): string[][] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = /^## Install\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .flatMap((line) => line.replace(/#.*/, '').split('&&'))
    .map((command) => command.trim())
    .filter((command) => command.startsWith('npm install '))
    .map((command) =>
      command
        .split(/\s+/)
        .slice(1)
        .map((arg) => (arg.endsWith('.tgz') ? tarball : arg)),
    );
}

/** The people of the table: 60, in two regions, each with an age. */
const people = Array.from({ length: 60 }, (_, i) => ({ person_id: i + 1, region: i % 3 === 0 ? 'south' : 'north', age: 20 + ((i * 37) % 60) }));

interface Released {
  group: string;
  count: { value: number; sd: number };
  'mean(age)': { value: number; sd: number };
}
interface Printed {
  file: Released[];
  memory: Released[];
  postgres?: Released[];
  spent: boolean;
}

describe('the packed package, installed with npm into an empty project', () => {
  let work: string;
  let tarball: string;
  /** The project of README's install lines, once they have worked. */
  let project: string | undefined;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'dpnoise-install-'));
    // --ignore-scripts: npm test has built dist/ (prepack would only find the build up to date).
    const [pack] = JSON.parse(run(root, 'npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work])) as Array<{ filename: string }>;
    tarball = join(work, pack!.filename);
    // An unrelated package, installed last: a local one, so that only npm's handling of the tree is tested.
    mkdirSync(join(work, 'unrelated'));
    writeFileSync(join(work, 'unrelated', 'package.json'), JSON.stringify({ name: 'unrelated', version: '1.0.0' }));
  }, 120_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** An empty project (`npm init -y`). */
  const emptyProject = (name: string): string => {
    const dir = join(work, name);
    mkdirSync(dir);
    run(dir, 'npm', ['init', '-y']);
    return dir;
  };

  /** Asserts that a later install works, and that npm finds the tree valid with dpnoise and the packages installed with it. */
  const expectValidTree = (dir: string, installed: readonly string[]) => {
    run(dir, 'npm', ['install', '../unrelated', ...NPM_FLAGS]);
    const { dependencies } = JSON.parse(run(dir, 'npm', ['ls', '--json'])) as { dependencies: Record<string, { version: string }> };
    expect(Object.keys(dependencies).sort()).toEqual([...installed, 'dpnoise', 'unrelated'].sort());
    for (const name of installed) expect(existsSync(join(dir, 'node_modules', name, 'package.json'))).toBe(true);
  };

  it("README's install lines work as written, in their order, and so does a later install", () => {
    const installs = readmeInstalls(tarball);
    const optional = ['@duckdb/node-api', 'pg', '@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm'];
    expect(installs).toEqual([['install', tarball], ...optional.map((name) => ['install', name])]);
    const dir = emptyProject('readme');
    for (const args of installs) run(dir, 'npm', [...args, ...NPM_FLAGS]);
    expectValidTree(dir, optional);
    project = dir;
  }, 300_000);

  it('the peers installed first, then the package: npm keeps them, and a later install works', () => {
    const dir = emptyProject('peers-first');
    run(dir, 'npm', ['install', '@duckdb/node-api', 'pg', '@tensorflow/tfjs', ...NPM_FLAGS]);
    run(dir, 'npm', ['install', tarball, ...NPM_FLAGS]);
    expectValidTree(dir, ['@duckdb/node-api', 'pg', '@tensorflow/tfjs']);
  }, 300_000);

  it('dpnoise/tfjs trains by import and by require(), on this Node and on Node 20.0.0: one run', () => {
    if (!project) throw new Error("README's install lines failed (the test above): nothing to run.");
    for (const script of ['training-run.cjs', 'training.mjs', 'training.cjs']) copyFileSync(join(root, 'test', 'install', script), join(project, script));
    const viaImport = run(project, process.execPath, ['training.mjs']);
    expect(JSON.parse(viaImport)).toMatchObject({ steps: 3 });
    expect(JSON.parse(viaImport).epsilon).toBeLessThanOrEqual(2);
    expect(run(project, process.execPath, ['training.cjs'])).toBe(viaImport);
    expect(run(project, binary(NODE20), ['training.cjs'])).toBe(viaImport);
  }, 120_000);

  describe('one aggregate from the installed package', () => {
    /** Runs the user's script of test/install/ in the project and returns what it printed. */
    const aggregateWith = (node: string, script: 'aggregate.mjs' | 'aggregate.cjs', args: string[] = []): Printed => {
      if (!project) throw new Error("README's install lines failed (the test above): nothing to run.");
      return JSON.parse(run(project, node, [script, ...args])) as Printed;
    };

    beforeAll(() => {
      if (!project) return;
      for (const script of ['aggregate.mjs', 'aggregate.cjs', 'releases.cjs']) copyFileSync(join(root, 'test', 'install', script), join(project, script));
      writeFileSync(join(project, 'people.csv'), `person_id,region,age\n${people.map((p) => `${p.person_id},${p.region},${p.age}`).join('\n')}\n`);
      writeFileSync(join(project, 'people.json'), JSON.stringify(people));
    });

    it('through DuckDB (a CSV file) and over rows in memory, by import and require(), on this Node and on Node 20.0.0: one release', () => {
      const viaImport = aggregateWith(process.execPath, 'aggregate.mjs');
      // The same totals and the same seed give the same release, whichever engine reads the rows.
      expect(viaImport.file).toEqual(viaImport.memory);
      expect(viaImport.spent).toBe(true);
      const [north, south] = viaImport.file;
      expect([north!.group, south!.group]).toEqual(['north', 'south']);
      expect(Math.abs(north!.count.value - 40)).toBeLessThan(6 * north!.count.sd);
      expect(Math.abs(south!.count.value - 20)).toBeLessThan(6 * south!.count.sd);
      // require('dpnoise') and require('dpnoise/aggregate') share one state: the budget and the generator of one serve the other.
      expect(aggregateWith(process.execPath, 'aggregate.cjs')).toEqual(viaImport);
      const node20 = binary(NODE20);
      expect(aggregateWith(node20, 'aggregate.cjs')).toEqual(viaImport);
      expect(aggregateWith(node20, 'aggregate.mjs')).toEqual(viaImport);
    }, 120_000);

    it.skipIf(!bin)(
      'through PostgreSQL (pg): the release of the same rows in memory, by import and by require() on Node 20.0.0',
      async () => {
        const server = startPostgres(bin!);
        try {
          const client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: 'postgres' });
          await client.connect();
          try {
            await client.query('CREATE TABLE people (person_id integer, region text, age float8)');
            await client.query('INSERT INTO people SELECT * FROM unnest($1::integer[], $2::text[], $3::float8[])', [
              people.map((p) => p.person_id),
              people.map((p) => p.region),
              people.map((p) => p.age),
            ]);
          } finally {
            await client.end();
          }
          const viaImport = aggregateWith(process.execPath, 'aggregate.mjs', [server.url]);
          expect(viaImport.postgres).toEqual(viaImport.memory);
          expect(aggregateWith(binary(NODE20), 'aggregate.cjs', [server.url])).toEqual(viaImport);
        } finally {
          server.stop();
        }
      },
      120_000,
    );
  });
});
