// The command line, run as users run it: node dist/cli.js (the package's `bin`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calibrateGaussian } from '../src/index.js';

const cli = new URL('../dist/cli.js', import.meta.url).pathname;
const dpnoise = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'dpnoise-cli-'));
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));

describe('dpnoise calibrate', () => {
  it('prints the figures and scales as a table, or as JSON equal to the library', () => {
    const table = dpnoise('calibrate', '--mechanism', 'gaussian', '--epsilon', '0.5', '--delta', '1e-6', '--sensitivity', '1,2,3');
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/mu\s+0\.124106/);
    expect(table.stdout).toMatch(/coordinate\s+sensitivity\s+scale/);
    const json = dpnoise('calibrate', '--mechanism', 'gaussian', '--epsilon', '0.5', '--delta', '1e-6', '--sensitivity', file('s.csv', '1\n2\n3\n'), '--allocation', 'iid', '--json');
    const parsed = JSON.parse(json.stdout);
    const expected = calibrateGaussian({ sensitivity: [1, 2, 3], epsilon: 0.5, delta: 1e-6, allocation: 'iid' });
    expect(parsed.scales).toEqual(Array.from(expected.scales));
    expect(parsed.mse).toBe(expected.mse);
  });

  it('explains bad input with a non-zero exit code', () => {
    for (const args of [
      ['calibrate', '--mechanism', 'gaussian', '--epsilon', '1', '--sensitivity', '1'], // no delta
      ['calibrate', '--mechanism', 'laplace', '--epsilon', '1', '--delta', '1e-6', '--sensitivity', '1'],
      ['calibrate', '--mechanism', 'uniform', '--epsilon', '1', '--sensitivity', '1'],
      ['calibrate', '--epsilon', '-1', '--delta', '1e-6', '--sensitivity', '1'],
      ['calibrate', '--epsilon', '1', '--delta', '1e-6', '--sensitivity', '1,x'],
      ['calibrate', '--bogus'],
      ['frobnicate'],
    ]) {
      const r = dpnoise(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^dpnoise: /);
    }
  });

  it('has --help for each command', () => {
    for (const args of [['--help'], ['calibrate', '--help'], ['release', '--help']]) {
      const r = dpnoise(...args);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^Usage: dpnoise/);
    }
  });
});

describe('dpnoise release', () => {
  const csv = file('data.csv', 'name,age,income\n"Smith, J",34,50000\nLee,29,42000\nDoe,51,61000\n');

  it('adds noise to the named columns only, streaming a CSV, reproducibly under a seed', () => {
    const out = join(dir, 'out.csv');
    const args = ['release', '--input', csv, '--columns', 'age,income', '--sensitivity', '1,1000', '--epsilon', '1', '--delta', '1e-6', '--seed', 'cli'];
    expect(dpnoise(...args, '--output', out).status).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('name,age,income');
    expect(lines[1]).toMatch(/^"Smith, J",-?[\d.e+-]+,-?[\d.e+-]+$/);
    expect(lines.slice(1).map((l) => l.split(',').slice(-2).map(Number)).flat().every((x) => Number.isFinite(x))).toBe(true);
    expect(lines[2]!.split(',')[1]).not.toBe('29');
    expect(dpnoise(...args).stdout).toBe(readFileSync(out, 'utf8'));
  });

  it('reads and writes NDJSON', () => {
    const out = join(dir, 'out.ndjson');
    const r = dpnoise('release', '--input', file('d.ndjson', '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n'), '--columns', 'a', '--sensitivity', '1', '--epsilon', '1', '--mechanism', 'laplace', '--output', out);
    expect(r.status).toBe(0);
    const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records.map((x) => x.b)).toEqual(['x', 'y']);
    expect(records.every((x) => typeof x.a === 'number' && Number.isFinite(x.a))).toBe(true);
  });

  it('never writes a partly noised file', () => {
    const out = join(dir, 'never.csv');
    const bad = file('bad.csv', 'a,b\n1,2\n3,oops\n5,6\n');
    const r = dpnoise('release', '--input', bad, '--columns', 'a,b', '--sensitivity', '1,1', '--epsilon', '1', '--delta', '1e-6', '--output', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/line 3, column "b": "oops" is not a finite number/);
    expect(existsSync(out)).toBe(false);
    expect(dpnoise('release', '--input', csv, '--columns', 'age,nope', '--sensitivity', '1,1', '--epsilon', '1', '--delta', '1e-6', '--output', out).stderr).toMatch(/column "nope" is not in the header/);
    expect(dpnoise('release', '--input', csv, '--columns', 'age', '--sensitivity', '1,1', '--epsilon', '1', '--delta', '1e-6').stderr).toMatch(/one value per column/);
    expect(dpnoise('release', '--input', join(dir, 'missing.csv'), '--columns', 'a', '--sensitivity', '1', '--epsilon', '1', '--delta', '1e-6').status).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});
