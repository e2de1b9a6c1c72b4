// The committed generated files (test/fixtures/*.json, assembly/noise/ziggurat.ts) are what
// `npm run generate` writes now: scripts/check-generated.mjs reruns the generators and compares.
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

// Skipped only without python3 or mpmath; another mpmath version fails (scripts/pinned.py).
const probe = spawnSync('python3', ['-c', 'import mpmath'], { encoding: 'utf8' });
const missing = probe.error ? 'no python3' : probe.status !== 0 ? 'no mpmath' : undefined;
const skipped = `skipped, ${missing}: the generators need Python >= 3.9 and scripts/requirements.txt`;
if (missing !== undefined) console.warn(`test/generated.long.test.ts ${skipped}`); // the default reporter shows no skipped titles

/** Runs the check without blocking the worker (the generators take 20 s or more). */
function check(): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['scripts/check-generated.mjs'], { cwd: root });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

describe('generated files', () => {
  it.skipIf(missing !== undefined)(
    missing === undefined ? 'match what their generators write (npm run generate)' : skipped,
    async () => {
      const { status, output } = await check();
      expect(status, output).toBe(0);
    },
    300_000,
  );
});
