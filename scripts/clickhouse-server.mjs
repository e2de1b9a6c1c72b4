// A private ClickHouse cluster for the tests and benchmarks: `clickhouse-server` processes on
// loopback ports chosen free, each with its own temporary data directory and a configuration
// naming all of them as the shards of one cluster, `dpnoise` (for Distributed tables). Debian's
// `clickhouse-server` package provides the binary; .ci/run installs it where it is missing. The
// server runs as root here (it does not refuse it), reachable from 127.0.0.1 only.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The server binary, or undefined where ClickHouse is not installed. */
export function clickhouseBinary() {
  return ['/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server', '/usr/bin/clickhouse'].find((p) => existsSync(p));
}

/** A TCP port free on 127.0.0.1 now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const escapeXml = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function configOf(dir, http, tcp, shards) {
  const d = escapeXml(dir);
  const shard = (port) => `<shard><replica><host>127.0.0.1</host><port>${port}</port></replica></shard>`;
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>error</level><log>${d}/log</log><errorlog>${d}/err.log</errorlog><size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${http}</http_port>
  <tcp_port>${tcp}</tcp_port>
  <path>${d}/data/</path>
  <tmp_path>${d}/tmp/</tmp_path>
  <user_files_path>${d}/user_files/</user_files_path>
  <format_schema_path>${d}/format_schemas/</format_schema_path>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <users_config>${d}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <remote_servers><dpnoise>${shards.map(shard).join('')}</dpnoise></remote_servers>
</yandex>
`;
}

const usersOf = (settings) => `<?xml version="1.0"?>
<yandex>
  <profiles><default>${Object.entries({ max_memory_usage: 8e9, ...settings })
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join('')}</default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;

/**
 * Runs `sql` on the server at `url` (HTTP; `body`, when given, is the data of an INSERT and `sql`
 * goes in the URL), returning its output as text; throws its message. Node's http: no time limit
 * on a long query (fetch gives up when the headers take 5 minutes).
 */
export function runClickHouse(url, sql, body) {
  const target = body === undefined ? url : `${url}/?query=${encodeURIComponent(sql)}`;
  return new Promise((resolve, reject) => {
    const call = request(target, { method: 'POST' }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (response.statusCode !== 200) reject(new Error(`ClickHouse: ${text.slice(0, 2000)}`));
        else resolve(text);
      });
      response.on('error', reject);
    });
    call.on('error', reject);
    call.end(body ?? sql);
  });
}

/**
 * Starts `count` servers with the binary `bin`, each a shard of the cluster `dpnoise` (with the
 * query `settings` of its default profile: max_memory_usage 8e9 unless given); resolves
 * when all answer. `servers[i].url` is the i-th one's HTTP address, `pids` their process ids,
 * `stop` ends them and removes their directories.
 */
export async function startClickHouse(bin, count = 2, settings = {}) {
  const ports = [];
  for (let i = 0; i < count; i++) ports.push({ http: await freePort(), tcp: await freePort() });
  const shards = ports.map((p) => p.tcp);
  const servers = ports.map(({ http, tcp }) => {
    const dir = mkdtempSync(join(tmpdir(), 'dpnoise-ch-'));
    for (const sub of ['data', 'tmp', 'user_files', 'format_schemas']) mkdirSync(join(dir, sub));
    writeFileSync(join(dir, 'config.xml'), configOf(dir, http, tcp, shards));
    writeFileSync(join(dir, 'users.xml'), usersOf(settings));
    const child = spawn(bin, [`--config-file=${join(dir, 'config.xml')}`], { stdio: 'ignore', cwd: dir });
    return { dir, child, url: `http://127.0.0.1:${http}`, tcp };
  });
  const kill = () => {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  };
  process.once('exit', kill);
  const stop = () => {
    kill();
    for (const s of servers) rmSync(s.dir, { recursive: true, force: true });
  };
  try {
    for (const s of servers) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (s.child.exitCode !== null) throw new Error(`clickhouse-server exited (${s.child.exitCode}); see its log in ${s.dir}`);
        try {
          if ((await fetch(`${s.url}/ping`)).ok) break;
        } catch {}
        if (Date.now() > deadline) throw new Error('clickhouse-server did not answer within 60 s');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (error) {
    stop();
    throw error;
  }
  return { servers: servers.map((s) => ({ url: s.url, pid: s.child.pid, dir: s.dir })), url: servers[0].url, stop };
}

/** An unsigned LEB128 varint (RowBinary's string length). */
function varint(n) {
  const bytes = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n > 0) byte |= 0x80;
    bytes.push(byte);
  } while (n > 0);
  return Buffer.from(bytes);
}

/**
 * Inserts `rows` (arrays of values) into `table` on the server at `url` in RowBinary, so that a
 * double arrives bit for bit (ClickHouse 18.16's text parser can be a unit in the last place off).
 * `types` per column: 'String', 'Float64', or either Nullable (null allowed).
 */
export async function insertRows(url, table, types, rows) {
  const parts = [];
  for (const row of rows) {
    types.forEach((type, i) => {
      const value = row[i];
      if (type.startsWith('Nullable')) {
        parts.push(Buffer.from([value === null || value === undefined ? 1 : 0]));
        if (value === null || value === undefined) return;
      }
      if (type.includes('Float64')) {
        const b = Buffer.alloc(8);
        b.writeDoubleLE(Number(value));
        parts.push(b);
      } else {
        const b = Buffer.from(String(value), 'utf8');
        parts.push(varint(b.length), b);
      }
    });
  }
  await runClickHouse(url, `INSERT INTO ${table} FORMAT RowBinary`, Buffer.concat(parts));
}
