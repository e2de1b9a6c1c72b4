// Applications the runtime tests build around dpnoise: each in a fresh directory under
// test/runtimes/.out/ (served by the browser tests' server) where `dpnoise` resolves, by name and
// through its package.json exports, to this repository.
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('../..', import.meta.url).pathname;

/** Empties test/runtimes/.out/<name>, links its node_modules/dpnoise to the repository, and returns its path. */
export function appDirectory(name: string): string {
  const dir = join(root, 'test/runtimes/.out', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules/dpnoise'));
  return dir;
}

/** A page that only loads `script` as a module (which sets `window.result`; chromium.ts's runPage). */
export function pageLoading(script: string): string {
  return `<!doctype html><link rel="icon" href="data:,"><script type="module" src="${script}"></script>\n`;
}
