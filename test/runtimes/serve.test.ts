// scripts/serve.mjs as a command (npm run demo:web): the port it is given, and one clear line and
// a non-zero exit, not a stack trace, when it cannot listen.
import { spawn, spawnSync } from 'node:child_process';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module
import { serve } from '../../scripts/serve.mjs';

const script = fileURLToPath(new URL('../../scripts/serve.mjs', import.meta.url));

/** This environment without PORT, plus `env`. */
function environment(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { PORT: _, ...rest } = process.env;
  return { ...rest, ...env };
}

/** Runs the script to its exit (10 s at most: one that keeps serving fails the test). */
function run(args: string[], env?: NodeJS.ProcessEnv) {
  const { status, stdout, stderr } = spawnSync(process.execPath, [script, ...args], { env: environment(env), encoding: 'utf8', timeout: 10_000 });
  return { status, stdout, stderr };
}

describe('scripts/serve.mjs', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = await serve(0);
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => void busy.close());

  it('says in one line which port is taken and how to pick another, and exits with 1', () => {
    const message = `dpnoise demo: port ${port} is already in use; pick another with npm run demo:web -- --port ${port + 1} (or PORT=${port + 1}; 0 picks a free port).\n`;
    expect(run(['--port', String(port)])).toEqual({ status: 1, stdout: '', stderr: message });
    expect(run([], { PORT: String(port) })).toEqual({ status: 1, stdout: '', stderr: message });
  });

  it('refuses a port that is not one, with exit status 2', () => {
    expect(run(['--port', '8o8o'])).toEqual({
      status: 2,
      stdout: '',
      stderr:
        'dpnoise demo: the port must be a whole number from 0 to 65535; got "8o8o". Usage: npm run demo:web -- --port 8123 (or PORT=8123; 0 picks a free port).\n',
    });
    expect(run([], { PORT: '70000' }).status).toBe(2);
  });

  it('serves the demo on the port it is given', async () => {
    const free = await serve(0); // a port free a moment ago
    const wanted = (free.address() as { port: number }).port;
    await new Promise((resolve) => free.close(resolve));
    const child = spawn(process.execPath, [script], { env: environment({ PORT: String(wanted) }), stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').once('data', resolve);
        child.once('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
      });
      const url = `http://127.0.0.1:${wanted}/demo/`;
      expect(line).toBe(`dpnoise demo: ${url}  (Ctrl-C to stop)\n`);
      const response = await fetch(url);
      expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status: 200, type: 'text/html' });
      // The page lays out for the device's width (a phone's, not 980 px shrunk to 40%).
      expect(await response.text()).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      // The bare address leads to the page (it answered "not found").
      const root = await fetch(`http://127.0.0.1:${wanted}/`, { redirect: 'manual' });
      expect({ status: root.status, location: root.headers.get('location') }).toEqual({ status: 302, location: '/demo/' });
    } finally {
      child.kill();
    }
  });
});
