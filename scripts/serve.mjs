// A small static file server for the demo page and the browser tests (localhost only).
// Run: node scripts/serve.mjs [--port N]   (or PORT=N; 8080 by default, 0 picks a free port),
// then open http://127.0.0.1:<port>/demo/
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Files the server makes on first request: DuckDB-Wasm's ESM entry imports Apache Arrow by a bare
 * specifier, which a module worker cannot resolve (import maps do not reach workers), so it is
 * served bundled with it, by esbuild (a devDependency; the demo is a development tool).
 */
const BUNDLED = { '/demo/duckdb-wasm.js': '@duckdb/duckdb-wasm/dist/duckdb-browser.mjs' };
const bundles = new Map();

async function bundled(path) {
  if (!bundles.has(path)) {
    const { build } = await import('esbuild');
    const { createRequire } = await import('node:module');
    const entry = createRequire(import.meta.url).resolve(BUNDLED[path]);
    const result = await build({ entryPoints: [entry], bundle: true, format: 'esm', write: false, logLevel: 'silent' });
    bundles.set(path, result.outputFiles[0].contents);
  }
  return bundles.get(path);
}
const TYPES = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.html': 'text/html',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

/**
 * Serves the repository's files on 127.0.0.1 (`port` 0 picks a free one); resolves to the server,
 * or rejects with the listening error (EADDRINUSE when the port is taken).
 */
export function serve(port = 0) {
  const server = createServer(async (request, response) => {
    let path = normalize(decodeURIComponent(new URL(request.url, 'http://localhost').pathname));
    if (path === '/') return void response.writeHead(302, { location: '/demo/' }).end(); // the page people open
    if (path.endsWith('/')) path += 'index.html';
    if (path.includes('..')) return void response.writeHead(403).end();
    try {
      const body = path in BUNDLED ? await bundled(path) : await readFile(join(root, path));
      response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** How to ask for port `n`. */
const usage = (n) => `npm run demo:web -- --port ${n} (or PORT=${n}; 0 picks a free port)`;

/** The port asked for: --port N, a bare N, or PORT (unless empty); 8080 by default. Throws a one-line reason. */
function portAsked() {
  const { values, positionals } = parseArgs({ options: { port: { type: 'string', short: 'p' } }, allowPositionals: true });
  const text = values.port ?? positionals[0] ?? (process.env.PORT || '8080');
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new Error(`the port must be a whole number from 0 to 65535; got ${JSON.stringify(text)}`);
  return Number(text);
}

// Run as a command, failures are one line on stderr and a non-zero exit, not a stack trace.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let port;
  try {
    port = portAsked();
  } catch (error) {
    console.error(`dpnoise demo: ${error.message}. Usage: ${usage(8123)}.`);
    process.exit(2);
  }
  try {
    const server = await serve(port);
    console.log(`dpnoise demo: http://127.0.0.1:${server.address().port}/demo/  (Ctrl-C to stop)`);
  } catch (error) {
    const reason = error.code === 'EADDRINUSE' ? 'is already in use' : `cannot be used (${error.code ?? error.message})`;
    console.error(`dpnoise demo: port ${port} ${reason}; pick another with ${usage(port < 65535 ? port + 1 : 8080)}.`);
    process.exit(1);
  }
}
