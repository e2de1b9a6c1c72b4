// Cloudflare's workerd runtime (from its npm package): a worker bundled with esbuild under the
// `workerd` condition imports the .wasm as a module, computes and samples; under one seed it
// gives exactly Node's numbers.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { built as dpnoise } from '../built.js';
import { workload } from './workload.js';

const root = new URL('../..', import.meta.url).pathname;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('workerd', () => {
  const children: Array<{ kill(): void }> = [];
  afterAll(() =>
    children.forEach((c) => {
      c.kill();
    }),
  );

  it('runs the workerd entry, with either build, and draws the same seeded noise as Node', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpnoise-workerd-'));
    await esbuild.build({
      entryPoints: [join(root, 'test/runtimes/workerd-worker.js')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd'],
      external: ['*.wasm'],
      outfile: join(dir, 'worker.js'),
      absWorkingDir: root,
      logLevel: 'error',
    });
    for (const build of ['simd', 'scalar']) copyFileSync(join(root, `dist/dpnoise-${build}.wasm`), join(dir, `dpnoise-${build}.wasm`));
    const port = await freePort();
    writeFileSync(
      join(dir, 'config.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "dpnoise-simd.wasm", wasm = embed "dpnoise-simd.wasm"),
    (name = "dpnoise-scalar.wasm", wasm = embed "dpnoise-scalar.wasm"),
  ],
  compatibilityDate = "2024-09-23",
);
`,
    );
    const child = spawn(join(root, 'node_modules/.bin/workerd'), ['serve', join(dir, 'config.capnp')], { stdio: 'pipe' });
    children.push(child);
    const answer = async (path: string) => {
      for (let attempt = 0; attempt < 100; attempt++) {
        try {
          return await (await fetch(`http://127.0.0.1:${port}${path}`)).json();
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    const expected = JSON.parse(JSON.stringify(workload(dpnoise)));
    expect(await answer('/')).toEqual(expected);
    expect(await answer('/?simd=false')).toEqual(expected);
  });
});
