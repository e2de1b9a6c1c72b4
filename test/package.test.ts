// The package as users get it: the built entry through import and require(), its types, and
// what `npm pack` ships (files, and a package.json without install-time scripts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: root, encoding: 'utf8' });

describe('the published package', () => {
  it('loads with import and with require(), and gives the same numbers', () => {
    const viaImport = run(process.execPath, ['--input-type=module', '-e', "import { gaussianMu } from 'dpnoise'; console.log(gaussianMu(0.5, 1e-6));"]);
    const viaRequire = run(process.execPath, ['-e', "const { gaussianMu } = require('dpnoise'); console.log(gaussianMu(0.5, 1e-6));"]);
    expect(viaImport.trim()).toMatch(/^0\.1241061490305/);
    expect(viaRequire).toBe(viaImport);
  });

  it('types resolve for a TypeScript consumer, and for one of dpnoise/tfjs by import and require()', () => {
    expect(() => run(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'test/consumer/tsconfig.json'])).not.toThrow();
    expect(() => run(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'test/consumer/tsconfig.tfjs.json'])).not.toThrow();
  });

  it('npm pack --json prints JSON only: its prepack build writes its messages to standard error', () => {
    const printed = run('npm', ['pack', '--json', '--dry-run']);
    expect(() => JSON.parse(printed)).not.toThrow();
  });

  it('npm pack ships dist/ (with both wasm builds), examples/ (the README refers to them), the README and the licence, nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpnoise-pack-'));
    try {
      // --ignore-scripts: npm test has built dist/ (prepack would only find the build up to date).
      const [pack] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir])) as Array<{
        filename: string;
        files: Array<{ path: string }>;
      }>;
      const files = pack!.files.map((f) => f.path);
      expect(files).toContain('dist/index.js');
      expect(files).toContain('dist/index.d.ts');
      expect(files).toContain('dist/index.cjs');
      expect(files).toContain('dist/index.d.cts');
      expect(files).toContain('dist/aggregate/index.cjs');
      expect(files).toContain('dist/aggregate/index.d.cts');
      expect(files).toContain('dist/tfjs/index.cjs');
      expect(files).toContain('dist/tfjs/index.d.cts');
      expect(files).toContain('dist/commonjs.cjs');
      expect(files).toContain('dist/dpnoise-simd.wasm');
      expect(files).toContain('dist/dpnoise-scalar.wasm');
      expect(files).toContain('README.md');
      expect(files).toContain('LICENSE');
      expect(files).toContain('examples/aggregate.mjs');
      expect(files).toContain('examples/data/diabetes.csv');
      expect(files.filter((f) => !f.startsWith('dist/') && !f.startsWith('examples/') && !['README.md', 'LICENSE', 'package.json'].includes(f))).toEqual([]);
      // npm runs these when the package is installed (prepare: from git) and npm 11 warns about them.
      const { scripts = {} } = JSON.parse(run('tar', ['-xzOf', join(dir, pack!.filename), 'package/package.json']));
      expect(Object.keys(scripts).filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
