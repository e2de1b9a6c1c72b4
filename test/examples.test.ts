// The programs in examples/ and the demo run against the built package and exit cleanly.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../examples/', import.meta.url);

describe('examples', () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith('.mjs')))('%s runs', (file) => {
    const output = execFileSync(process.execPath, [new URL(file, dir).pathname], { encoding: 'utf8', timeout: 60_000 });
    expect(output.length).toBeGreaterThan(100);
    expect(output).not.toMatch(/NaN|Infinity/);
  });
});
