// The budget file's atomic write (src/cli/budget-file.ts); test/cli/budget-lock.test.ts charges it
// from several processes at once.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAtomically } from '../../src/cli/budget-file.js';

const dir = mkdtempSync(join(tmpdir(), 'dpnoise-budget-file-'));

describe('writeAtomically', () => {
  it('replaces the file whole through a temporary file beside it, leaving none behind', () => {
    const folder = join(dir, 'atomic');
    mkdirSync(folder);
    const file = join(folder, 'budget.json');
    writeAtomically(file, 'first\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeAtomically(file, 'second\n');
    expect(readFileSync(file, 'utf8')).toBe('second\n');
    expect(readdirSync(folder)).toEqual(['budget.json']);
  });

  it('fails without touching the file, or leaving a temporary file, when the rename fails', () => {
    const folder = join(dir, 'atomic-fails');
    mkdirSync(join(folder, 'budget.json'), { recursive: true }); // a folder where the file should be
    expect(() => writeAtomically(join(folder, 'budget.json'), 'text')).toThrow();
    expect(readdirSync(folder)).toEqual(['budget.json']);
    expect(statSync(join(folder, 'budget.json')).isDirectory()).toBe(true);
  });
});
