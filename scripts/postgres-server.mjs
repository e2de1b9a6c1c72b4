// A private PostgreSQL server for the tests and benchmarks: initdb in a temporary directory,
// listening on a Unix socket in that directory only (no TCP port), as an unprivileged user (the
// `postgres` account when run as root, as initdb refuses root). Debian's `postgresql` package
// provides the binaries; .ci/run installs it where it is missing.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The directory of initdb and pg_ctl: the newest PostgreSQL under /usr/lib/postgresql, or undefined. */
export function postgresBinaries() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], 'bin') : undefined;
}

/** The uid and gid of a user account. */
function userIdsOf(name) {
  const fields = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim().split(':');
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** Starts a server with PostgreSQL's binaries in `bin`; `stop` ends it and removes its directory. */
export function startPostgres(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'dpnoise-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = userIdsOf('postgres');
    chownSync(dir, uid, gid);
  }
  const run = (command, args) =>
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
    /** The data directory (its postmaster.pid names the server process). */
    dataDirectory: data,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
