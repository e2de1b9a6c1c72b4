// The budget file of `dpnoise aggregate --budget` and `dpnoise budget --output`. It is charged and
// created under its lock (file-lock.ts), so that releases run at once each see the others'
// charges: it is read again once locked, and written back the moment the release charges it,
// before the release reads any data, so that a crash or a failure after the charge still leaves
// it recorded. Every write is whole: a temporary file beside it, synced, then renamed over it.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { type PrivacyBudget, restoreBudgetWith } from '../accounting/ledger.js';
import { withLock } from './file-lock.js';
import { UsageError } from './io.js';

/**
 * Runs `release` with the budget saved in `file`, holding its lock until the release ends. The
 * budget's `spend` writes the file (synchronously) before it returns: aggregate() spends just
 * before it reads the rows, and accepts only budgets the ledger made, so the saving is a hook of
 * the ledger's (restoreBudgetWith) rather than a wrapper. A refused release writes nothing.
 */
export async function chargeBudgetFile<T>(file: string, release: (budget: PrivacyBudget) => Promise<T>): Promise<{ result: T; budget: PrivacyBudget }> {
  if (!existsSync(file)) throw new UsageError(`--budget ${file} does not exist; create it with: dpnoise budget --epsilon E --delta D --output ${file}`);
  const path = realpathSync(file); // one lock for every link to the file
  return withLock(path, '--budget', async () => {
    const save = (json: object) => writeAtomically(path, `${JSON.stringify(json)}\n`);
    const budget = restoreBudgetWith(JSON.parse(readFileSync(path, 'utf8')), save);
    return { result: await release(budget), budget };
  });
}

/** Creates `file` with `budget`, under its lock; never replaces a file (it records what was spent). */
export async function createBudgetFile(file: string, budget: PrivacyBudget): Promise<void> {
  const path = join(realpathSync(dirname(resolve(file))), basename(file));
  await withLock(path, '--output', async () => {
    if (existsSync(path)) throw new UsageError(`--output ${file} exists: a budget file is never overwritten (it records what was spent).`);
    writeAtomically(path, `${JSON.stringify(budget)}\n`);
  });
}

/**
 * Replaces `file` with `text` whole: a reader (or a crash) sees the old file or the new one,
 * never a part. The temporary file is beside it (a rename stays on one file system), created
 * exclusively with mode 0600 under a random name, and synced before the rename.
 */
export function writeAtomically(file: string, text: string): void {
  const temporary = join(dirname(file), `.${basename(file)}.dpnoise-${randomBytes(16).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncFolder(dirname(file));
}

/** Makes the rename itself durable where the system allows it (Linux, macOS; not Windows). */
function syncFolder(folder: string): void {
  try {
    const fd = openSync(folder, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The rename stands; only its durability across a power cut is then the system's.
  }
}
