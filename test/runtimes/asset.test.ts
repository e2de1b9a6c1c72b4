// The `dpnoise/asset` entry loads the module from the package's .wasm files instead of embedding
// them: in Node (a fresh process, where nothing else registered the embedded builds) and in a
// browser bundle made by esbuild, which leaves the files to copy next to the bundle. Its bundles
// carry no WebAssembly; the default entry's do (the check has power).
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { built as dpnoise } from '../built.js';
import { appDirectory, pageLoading, root } from './apps.js';
import { runPage, useChromium } from './chromium.js';
import { workload } from './workload.js';

const out = appDirectory('asset');
/** The start of any WebAssembly module ("\0asm", version 1) in base64. */
const WASM_IN_BASE64 = 'AGFzbQEAAAA';

const bundle = async (entry: string, page: string) => {
  const result = await esbuild.build({
    stdin: { contents: page.replace('ENTRY', entry), resolveDir: out, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'error',
  });
  return result.outputFiles[0]!.text;
};
const PAGE = `import * as dpnoise from 'ENTRY'; import { workload } from '${join(root, 'test/runtimes/workload.js')}';
window.result = dpnoise.init().then(() => workload(dpnoise)).catch((e) => ({ error: String(e) }));`;

describe('the dpnoise/asset entry', () => {
  const chromium = useChromium();

  it('in Node: asks for init(), then loads the .wasm file and gives the default entry numbers', () => {
    const script = `import * as d from 'dpnoise/asset'; import { workload } from '${join(root, 'test/runtimes/workload.js')}';
let before = 'no error'; try { d.gaussianMu(1, 1e-6); } catch (e) { before = e.message; }
let drawn = 'no error'; try { d.gaussianNoise(3, 1); } catch (e) { drawn = e.message; } // a draw refused before init() leaves none under way
await d.init(); console.log(JSON.stringify({ before, drawn, result: workload(d) }));`;
    writeFileSync(join(out, 'node.mjs'), script);
    const child = spawnSync(process.execPath, [join(out, 'node.mjs')], { encoding: 'utf8', timeout: 60_000 });
    expect(child.stderr).toBe('');
    const { before, drawn, result } = JSON.parse(child.stdout);
    expect(before).toMatch(
      /call `await init\(\)` once before first use: this entry \('dpnoise\/asset' or the workerd entry\) loads its WebAssembly module only then, in Node too\./,
    );
    expect(before).not.toMatch(/outside Node/);
    expect(drawn).toMatch(/call `await init\(\)` once before first use/);
    expect(result).toEqual(JSON.parse(JSON.stringify(workload(dpnoise))));
  });

  it('in a browser bundle: carries no WebAssembly, loads the file and gives the same numbers', async () => {
    const lean = await bundle('dpnoise/asset', PAGE);
    expect(lean).not.toContain(WASM_IN_BASE64);
    expect(await bundle('dpnoise', PAGE)).toContain(WASM_IN_BASE64);
    writeFileSync(join(out, 'page.js'), lean);
    for (const name of ['dpnoise-simd.wasm', 'dpnoise-scalar.wasm']) copyFileSync(join(root, 'dist', name), join(out, name));
    writeFileSync(join(out, 'index.html'), pageLoading('page.js'));
    const { result, requested } = await runPage(chromium, '/test/runtimes/.out/asset/index.html');
    expect(result).toEqual(JSON.parse(JSON.stringify(workload(dpnoise))));
    expect(requested.filter((file) => file.endsWith('.wasm'))).toEqual(['dpnoise-simd.wasm']); // only the build it uses
  });
});
