// A lock on a file shared by processes (the budget file, which several releases may charge at
// once): FILE.lock beside it, created with 'wx' (O_CREAT | O_EXCL: the file system lets exactly one
// process create it) and holding its owner's pid, host and start time. A process that finds it
// waits, polling with backoff, for a bounded time and then gives up with an error that names the
// owner. A lock is stale, and taken over, when its process is gone from this host or when its
// holder has not touched it for LOCK_LIMITS.stale (a live holder touches it every
// LOCK_LIMITS.refresh, so a long release keeps its lock and a crash elsewhere frees it in time).
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

/** The lock's times, in milliseconds. */
export interface LockLimits {
  /** How long to wait for another holder before giving up. */
  readonly wait: number;
  /** A lock not touched for this long is abandoned (its holder touches it every `refresh`). */
  readonly stale: number;
  /** How often a holder touches its lock. */
  readonly refresh: number;
}

/** 5 minutes' wait (a release of 1e8 rows takes 30 s); stale after 10 minutes untouched (40 refreshes missed). */
export const LOCK_LIMITS: LockLimits = { wait: 5 * 60_000, stale: 10 * 60_000, refresh: 15_000 };

interface Owner {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
}

/** A lock found held: its text as read, its owner if the text records one, and how long since it was touched. */
interface Held {
  readonly text: string;
  readonly owner: Owner | undefined;
  readonly age: number;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const code = (error: unknown) => (error as { code?: string }).code;

/**
 * Runs `use` holding FILE.lock, and removes the lock when `use` ends, whether it succeeds or
 * throws (or a signal stops the process). `name` is the option that gave `file`, for the error.
 */
export async function withLock<T>(file: string, name: string, use: () => Promise<T>, limits: Partial<LockLimits> = {}): Promise<T> {
  const { wait, stale, refresh } = { ...LOCK_LIMITS, ...limits };
  const lock = `${file}.lock`;
  const mine = await acquire(lock, stale, wait, () => `\`${name}\` ${file}`);
  const timer = setInterval(() => touch(lock), refresh);
  timer.unref();
  const release = () => {
    clearInterval(timer);
    for (const signal of SIGNALS) process.off(signal, onSignal);
    removeIfMine(lock, mine);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    release();
    process.kill(process.pid, signal); // with our handler gone, the signal ends the process as usual
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    return await use();
  } finally {
    release();
  }
}

/** Creates the lock, waiting for (or taking over) one held; returns the text it wrote, to know its own lock later. */
async function acquire(lock: string, stale: number, wait: number, what: () => string): Promise<string> {
  const deadline = Date.now() + wait;
  let pause = 10;
  for (;;) {
    const text = `${JSON.stringify({ pid: process.pid, host: hostname(), started: new Date().toISOString() })}\n`;
    if (create(lock, text)) return text;
    const held = inspect(lock);
    // Released between the two looks: try again at once, until the deadline (a lock that another
    // process keeps creating and removing must not hold this one in a loop).
    if (held === undefined && Date.now() < deadline) continue;
    if (held !== undefined && isStale(held, stale)) {
      takeOver(lock, held.text);
      continue;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(heldMessage(what(), wait, lock, held?.owner));
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, 1000);
  }
}

/** Whether this call created the lock (false: it exists). */
function create(lock: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o644);
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, text);
  } catch (error) {
    rmSync(lock, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The lock as found, or undefined if it is gone. Its text may be empty or cut short while its creator writes it. */
function inspect(lock: string): Held | undefined {
  try {
    const age = Date.now() - statSync(lock).mtimeMs;
    const text = readFileSync(lock, 'utf8');
    return { text, owner: ownerOf(text), age };
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function ownerOf(text: string): Owner | undefined {
  try {
    const o = JSON.parse(text) as Partial<Owner>;
    const valid =
      Number.isSafeInteger(o.pid) && o.pid! > 0 && typeof o.host === 'string' && o.host.length <= 255 && Number.isFinite(Date.parse(String(o.started)));
    return valid ? { pid: o.pid!, host: o.host!, started: new Date(o.started!).toISOString() } : undefined;
  } catch {
    return undefined;
  }
}

/** Stale: untouched past the limit (any host, any text), or its process gone from this host. */
function isStale(held: Held, stale: number): boolean {
  if (held.age > stale) return true;
  return held.owner !== undefined && held.owner.host === hostname() && !alive(held.owner.pid);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return true;
  } catch (error) {
    return code(error) === 'EPERM'; // it exists, under another user
  }
}

/**
 * Removes a stale lock. Two processes may judge the same lock stale, and one may remove it and
 * create its own before the other acts: so the lock is first renamed aside (atomic), and removed
 * only if it is still the text judged stale; otherwise it is put back with link(), which never
 * replaces a lock created meanwhile.
 */
function takeOver(lock: string, judged: string): void {
  const aside = `${lock}.${randomBytes(8).toString('hex')}.stale`;
  try {
    renameSync(lock, aside);
  } catch (error) {
    if (code(error) === 'ENOENT') return; // another process removed it first
    throw error;
  }
  try {
    if (readFileSync(aside, 'utf8') !== judged) linkSync(aside, lock);
  } catch {
    // A lock created since holds the name; the one moved aside lost it (a rare, narrow race).
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Marks the lock as alive (its modification time), for isStale in other processes. */
function touch(lock: string): void {
  try {
    const now = new Date();
    utimesSync(lock, now, now);
  } catch {
    // Gone: the release is ending, or another process took it for stale; nothing to refresh.
  }
}

/** Removes the lock if it is still this process's (never another's that took over a stale one). */
function removeIfMine(lock: string, mine: string): void {
  try {
    if (readFileSync(lock, 'utf8') === mine) rmSync(lock, { force: true });
  } catch {
    // Already gone.
  }
}

function heldMessage(what: string, wait: number, lock: string, owner: Owner | undefined): string {
  const held =
    owner === undefined
      ? `a lock whose owner is not recorded (if no dpnoise is using it, remove ${lock})`
      : `the lock of process ${owner.pid} on ${owner.host} since ${owner.started} (if that process is gone, remove ${lock})`;
  return `dpnoise: ${what} must be unlocked within ${wait / 1000} s; got ${held}.`;
}
