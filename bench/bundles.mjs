// Benchmark group "Bundles": what an application's browser bundle carries, by entry. esbuild
// bundles (minified) an app that releases with laplaceMechanism and one that imports everything,
// through the default entry (both builds embedded as base64), `dpnoise/asset` (the .wasm loaded as
// a file) and the `workerd` condition (the .wasm imported as a module).
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { fmt } from './format.mjs';

export const title = 'Bundles';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const APPS = [
  [
    'laplaceMechanism only',
    "import { init, laplaceMechanism } from 'ENTRY'; await init(); console.log(laplaceMechanism({ sensitivity: [1], epsilon: 1 }).release([0]));",
  ],
  ['the whole API', "import * as dpnoise from 'ENTRY'; await dpnoise.init(); console.log(dpnoise);"],
];
const ENTRIES = [
  ['default (`dpnoise`)', 'dpnoise', []],
  ['`dpnoise/asset`', 'dpnoise/asset', []],
  ['`workerd` condition', 'dpnoise', ['workerd']],
];

export async function run(ctx) {
  const dir = join(root, 'bench', '.out', 'bundles');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules', 'dpnoise'));
  const kB = (bytes) => fmt(bytes / 1024);
  const rows = [];
  for (const [app, source] of APPS) {
    for (const [label, entry, conditions] of ENTRIES) {
      ctx.log(`  ${app}, ${label} ...`);
      const result = await esbuild.build({
        stdin: { contents: source.replace('ENTRY', entry), resolveDir: dir, loader: 'js' },
        bundle: true,
        format: 'esm',
        platform: 'browser',
        conditions,
        external: ['*.wasm'],
        minify: true,
        write: false,
        logLevel: 'error',
      });
      const js = result.outputFiles[0].contents;
      rows.push([app, label, kB(js.length), kB(gzipSync(js).length)]);
    }
  }
  const wasm = (name) => statSync(join(root, 'dist', name)).size;
  const gz = (name) => gzipSync(readFileSync(join(root, 'dist', name))).length;
  return [
    {
      heading: 'Browser bundle sizes, kB',
      text:
        'esbuild, minified, ESM, platform browser. The default entry carries both WebAssembly builds as base64; the other two load ' +
        `one .wasm file instead: dpnoise-simd.wasm ${kB(wasm('dpnoise-simd.wasm'))} kB (${kB(gz('dpnoise-simd.wasm'))} kB gzipped), ` +
        `dpnoise-scalar.wasm ${kB(wasm('dpnoise-scalar.wasm'))} kB (${kB(gz('dpnoise-scalar.wasm'))} kB gzipped).`,
      columns: ['app', 'entry', 'JS kB', 'JS kB gzipped'],
      rows,
    },
  ];
}
