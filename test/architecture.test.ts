// The layout is the architecture: every import points down the layers below, and no modules
// import each other in a circle. A new folder must be given its layer here.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** Lowest first: a module may import from its own layer and the layers before it. */
const LAYERS: Record<string, readonly string[]> = {
  src: ['core', 'wasm', 'math', 'engine', 'accounting', 'noise', 'calibrate', 'mechanisms', 'applications', 'tfjs', 'aggregate', 'cli', '.'],
  assembly: ['memory.ts', 'math', 'accounting', 'noise', 'calibrate', '.'],
};

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** The relative module imports of a file (static, re-exports and dynamic; not assets such as .wasm), as .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => m[1] ?? m[2]!,
  );
  return specifiers
    .filter((s) => s.startsWith('.') && /(\.js|\/[\w-]+)$/.test(s)) // TypeScript's .js, AssemblyScript's bare names
    .map((s) => relative(root, resolve(dirname(join(root, file)), s)).replace(/(\.js)?$/, '.ts'));
}

/** The layer of a file: its folder under the top directory, a file named as a layer, or '.'. */
function layerOf(file: string): { top: string; rank: number } {
  const [top, ...rest] = file.split('/');
  const layers = LAYERS[top!]!;
  const name = rest.length > 1 ? rest[0]! : layers.includes(rest[0]!) ? rest[0]! : '.';
  const rank = layers.indexOf(name);
  if (rank < 0) throw new Error(`${file}: the folder ${top}/${name} has no layer in test/architecture.test.ts`);
  return { top: top!, rank };
}

describe.each(Object.keys(LAYERS))('%s/', (top) => {
  const files = sources(top).filter((f) => !f.endsWith('embedded.ts'));
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => !t.endsWith('embedded.ts'))]));

  it('imports only from its own layer or the layers below', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const from = layerOf(file);
        const to = layerOf(target);
        if (to.top !== from.top || to.rank > from.rank) upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') return void cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('resolves every relative import to a file of the folder (the check sees them all)', () => {
    const missing = [...graph.values()].flat().filter((t) => !graph.has(t));
    expect(missing).toEqual([]);
    expect(graph.size).toBeGreaterThan(5);
  });
});

describe('the WebAssembly module', () => {
  it('is reached only from calibrate/ and below, but for loading it (math/, noise/ and the mechanisms stand between)', () => {
    const calibrate = LAYERS.src!.indexOf('calibrate');
    const reaching = sources('src')
      .filter((file) => layerOf(file).rank > calibrate && layerOf(file).rank < LAYERS.src!.indexOf('.'))
      .filter((file) => importsOf(file).some((target) => target.startsWith('src/wasm/') && target !== 'src/wasm/embedded-init.ts'))
      .sort();
    expect(reaching).toEqual([]);
  });
});
