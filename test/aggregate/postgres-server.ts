// A private PostgreSQL server for the tests: initdb in a temporary directory, listening on a Unix
// socket in that directory only (no TCP port), as an unprivileged user (the `postgres` account when
// the tests run as root, as initdb refuses root). Debian's `postgresql` package provides the
// binaries; .ci/run installs it where it is missing.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** The directory of initdb and pg_ctl: the newest PostgreSQL under /usr/lib/postgresql, or undefined. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : undefined;
}

export interface PostgresServer {
  /** The socket directory: pg's `host`. */
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** A connection string for the server's `postgres` database. */
  readonly url: string;
  stop(): void;
}

/** Starts a server; `stop` ends it and removes its directory. */
export function startPostgres(bin: string): PostgresServer {
  const dir = mkdtempSync(join(tmpdir(), 'dpnoise-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = userIdsOf('postgres');
    chownSync(dir, uid, gid);
  }
  const run = (command: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : join(bin, command), asRoot ? ['-u', 'postgres', '--', join(bin, command), ...args] : args, {
      stdio: 'pipe',
      timeout: 60_000,
    });
  const data = join(dir, 'data');
  const user = 'dpnoise';
  const port = 5433;
  run('initdb', ['-D', data, '-U', user, '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  // No TCP listener at all: the socket in `dir` is the only way in.
  run('pg_ctl', ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-c listen_addresses='' -k ${dir} -p ${port} -c fsync=off`, 'start']);
  return {
    host: dir,
    port,
    user,
    url: `postgresql://${user}@/postgres?host=${encodeURIComponent(dir)}&port=${port}`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function userIdsOf(name: string): { uid: number; gid: number } {
  const line = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim().split(':');
  if (line.length < 4) throw new Error(`no user ${name} (${userInfo().username} runs the tests)`);
  return { uid: Number(line[2]), gid: Number(line[3]) };
}
