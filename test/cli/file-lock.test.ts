// The lock of a file shared by processes (src/cli/file-lock.ts), in one process with short limits;
// test/cli/budget-lock.test.ts runs it across processes, on the budget file.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withLock } from '../../src/cli/file-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'dpnoise-file-lock-'));
let files = 0;
const newFile = () => {
  const file = join(dir, `budget-${files++}.json`);
  writeFileSync(file, '{}\n');
  return file;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const lockOf = (file: string) => JSON.parse(readFileSync(`${file}.lock`, 'utf8')) as { pid: number; host: string; started: string };
const writeLock = (file: string, text: string, ageMs = 0) => {
  writeFileSync(`${file}.lock`, text);
  const then = new Date(Date.now() - ageMs);
  utimesSync(`${file}.lock`, then, then);
};
const lockText = (pid: number, host = hostname()) => `${JSON.stringify({ pid, host, started: new Date().toISOString() })}\n`;
const gonePid = () => spawnSync(process.execPath, ['-e', '']).pid!;
const SHORT = { wait: 400, stale: 60_000, refresh: 10_000 };

describe('withLock', () => {
  it('holds FILE.lock (its pid, host and start time) while `use` runs, and removes it after, whether `use` succeeds or throws', async () => {
    const file = newFile();
    const seen = await withLock(file, '--budget', async () => lockOf(file));
    expect(seen.pid).toBe(process.pid);
    expect(seen.host).toBe(hostname());
    expect(Math.abs(Date.parse(seen.started) - Date.now())).toBeLessThan(10_000);
    expect(existsSync(`${file}.lock`)).toBe(false);
    await expect(
      withLock(file, '--budget', async () => {
        throw new Error('the release failed');
      }),
    ).rejects.toThrow('the release failed');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('makes a second holder wait for the first', async () => {
    const file = newFile();
    const events: string[] = [];
    const hold = (name: string) =>
      withLock(file, '--budget', async () => {
        events.push(`${name} in`);
        await sleep(150);
        events.push(`${name} out`);
      });
    await Promise.all([hold('a'), sleep(10).then(() => hold('b'))]);
    expect(events).toEqual(['a in', 'a out', 'b in', 'b out']);
  });

  it('waits a bounded time for a live lock, then says which process holds it and leaves its lock alone', async () => {
    const file = newFile();
    const text = lockText(process.pid);
    writeLock(file, text);
    let ran = false;
    const started = Date.now();
    await expect(
      withLock(
        file,
        '--budget',
        async () => {
          ran = true;
        },
        SHORT,
      ),
    ).rejects.toThrow(
      new RegExp(
        `^dpnoise: \`--budget\` ${file} must be unlocked within 0\\.4 s; got the lock of process ${process.pid} on ${hostname()} since .*Z \\(if that process is gone, remove ${file}\\.lock\\)\\.$`,
      ),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(ran).toBe(false);
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(text);
  });

  it('takes over a stale lock: of a process gone from this host, or not refreshed within the limit', async () => {
    const dead = newFile();
    writeLock(dead, lockText(gonePid()));
    expect(await withLock(dead, '--budget', async () => lockOf(dead).pid, SHORT)).toBe(process.pid);
    const old = newFile();
    writeLock(old, lockText(process.pid), 5_000); // alive, but its holder stopped refreshing it
    expect(await withLock(old, '--budget', async () => lockOf(old).pid, { ...SHORT, stale: 2_000 })).toBe(process.pid);
    const torn = newFile();
    writeLock(torn, '{"pid":', 5_000); // a holder that died while writing it
    expect(await withLock(torn, '--budget', async () => lockOf(torn).pid, { ...SHORT, stale: 2_000 })).toBe(process.pid);
  });

  it('does not take over a fresh lock of another host (its pid means nothing here), nor one still being written', async () => {
    const other = newFile();
    writeLock(other, lockText(gonePid(), `not-${hostname()}`));
    await expect(withLock(other, '--budget', async () => 0, SHORT)).rejects.toThrow(/must be unlocked within 0\.4 s; got the lock of process \d+ on not-/);
    const writing = newFile();
    writeLock(writing, '');
    await expect(withLock(writing, '--budget', async () => 0, SHORT)).rejects.toThrow(
      /must be unlocked within 0\.4 s; got a lock whose owner is not recorded \(if no dpnoise is using it, remove .*\.lock\)\.$/,
    );
  });

  it('refreshes its lock while it holds it, so that a long release is never taken for a stale one', async () => {
    const file = newFile();
    const limits = { wait: 5_000, stale: 300, refresh: 50 };
    const events: string[] = [];
    await Promise.all([
      withLock(
        file,
        '--budget',
        async () => {
          events.push('long in');
          await sleep(1_000);
          events.push('long out');
        },
        limits,
      ),
      sleep(20).then(() => withLock(file, '--budget', async () => void events.push('next'), limits)),
    ]);
    expect(events).toEqual(['long in', 'long out', 'next']);
  });
});
