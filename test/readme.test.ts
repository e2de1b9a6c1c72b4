// The code in the documents, each block on its own as a user would paste it: every ```js and ```ts
// block of README.md, and every @example of the TSDoc comments in src/ (the API reference's). Each
// type-checks under the repository's compiler options against the built package's types, and
// runs against the built package, exiting 0 with nothing on standard error. Each block is a module
// of its own in a temporary directory whose node_modules/dpnoise links to this repository, so
// 'dpnoise' resolves through package.json's exports to dist/, for tsc and Node alike.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const run = promisify(execFile);

interface Block {
  /** Where it is: file:line of the opening fence. */
  where: string;
  lang: 'js' | 'ts';
  code: string;
  /** Its module in the temporary directory, without the extension. */
  module: string;
  /** tsc's errors, as file:line:column message. */
  errors: string[];
}

const block = (file: string, line: number, lang: string, code: string): Block => ({
  where: `${file}:${line}`,
  lang: lang as Block['lang'],
  code,
  module: `${file.replace(/[/.]/g, '-')}-${line}`,
  errors: [],
});

const readmeText = readFileSync(join(root, 'README.md'), 'utf8');
const readme = [...readmeText.matchAll(/^```(js|ts)\n([\s\S]*?)^```$/gm)].map((m) =>
  block('README.md', readmeText.slice(0, m.index).split('\n').length, m[1]!, m[2]!),
);

/** The fenced blocks inside the TSDoc comments of src/, their ' * ' prefixes removed. */
const examples = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .flatMap((f) => {
    const lines = readFileSync(join(root, 'src', f), 'utf8').split('\n');
    const found: Block[] = [];
    lines.forEach((line, i) => {
      const open = /^\s*\* ```(js|ts)$/.exec(line);
      if (!open) return;
      const end = lines.findIndex((l, j) => j > i && /^\s*\* ```$/.test(l));
      const code = lines.slice(i + 1, end).map((l) => l.replace(/^\s*\* ?/, ''));
      found.push(block(`src/${f}`, i + 1, open[1]!, `${code.join('\n')}\n`));
    });
    return found;
  });

describe('code in the documents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpnoise-docs-code-'));
  const file = (b: Block, extension: string) => join(dir, `${b.module}${extension}`);
  /** Errors outside the blocks: the options, the package's types. */
  const elsewhere: string[] = [];

  // One program for all blocks (a few seconds, against a second or more per block); .mts files
  // are modules, so the blocks' names never clash.
  beforeAll(() => {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'dpnoise'), 'dir');
    // dpnoise/tfjs's blocks import its peer, as a user's project would have it.
    symlinkSync(join(root, 'node_modules', '@tensorflow'), join(dir, 'node_modules', '@tensorflow'), 'dir');
    const byFile = new Map([...readme, ...examples].map((b) => [file(b, '.mts'), b]));
    for (const [path, b] of byFile) writeFileSync(path, b.code);
    const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const options = { ...config.options, noEmit: false, outDir: dir, rootDir: dir, typeRoots: [join(root, 'node_modules', '@types')] };
    const program = ts.createProgram([...byFile.keys()], options);
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const b = d.file && byFile.get(d.file.fileName);
      if (b && d.start !== undefined) {
        const { line, character } = d.file!.getLineAndCharacterOfPosition(d.start);
        const [source, fence] = b.where.split(':');
        b.errors.push(`${source}:${Number(fence) + line + 1}:${character + 1} ${message}`);
      } else elsewhere.push(`${d.file?.fileName ?? ''} ${message}`);
    }
    // ```ts blocks run as tsc emits them (.mjs); ```js blocks run as written.
    program.emit();
    for (const b of [...readme, ...examples]) if (b.lang === 'js') writeFileSync(file(b, '.mjs'), b.code);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are found, and compile with no error outside them', () => {
    expect(readme.length).toBeGreaterThanOrEqual(5);
    expect(examples.length).toBeGreaterThanOrEqual(30);
    expect(elsewhere).toEqual([]);
  });

  it.each(readme.map((b) => [b.where, b.lang, b] as const))('%s (%s) type-checks and runs on its own', async (_where, _lang, b) => {
    expect(b.errors).toEqual([]);
    const { stderr } = await run(process.execPath, [file(b, '.mjs')], { cwd: dir, timeout: 60_000 });
    expect(stderr).toBe('');
  });

  it.each(examples.map((b) => [b.where, b] as const))('the @example at %s type-checks', (_where, b) => {
    expect(b.errors).toEqual([]);
  });

  // One process imports them one after the other (a process each would take a second or more apiece).
  it('the @examples run', async () => {
    const runner = join(dir, 'run-examples.mjs');
    const modules = examples.map((b) => [b.where, `./${b.module}.mjs`]);
    writeFileSync(
      runner,
      `for (const [where, module] of ${JSON.stringify(modules)}) {\n` +
        '  await import(module).catch((error) => { console.error(where, error); process.exitCode = 1; });\n' +
        '}\n',
    );
    const { stderr } = await run(process.execPath, [runner], { cwd: dir, timeout: 60_000 });
    expect(stderr).toBe('');
  });
});

describe('figures in README', () => {
  it('the allocation table on the diabetes means is what scripts/diabetes-means.mjs prints (seeded)', async () => {
    const { stdout } = await run(process.execPath, [join(root, 'scripts/diabetes-means.mjs')], { cwd: root, timeout: 60_000 });
    expect(stdout).toMatch(/^\| allocation \| age \|/);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(stdout);
  });

  it('the accountant table is what scripts/accountant-table.mjs prints', async () => {
    const { stdout } = await run(process.execPath, [join(root, 'scripts/accountant-table.mjs')], { cwd: root, timeout: 120_000 });
    expect(stdout).toMatch(/^\| releases \(delta\) \| dpnoise epsilon \|/);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(stdout);
  });

  it('the staircase table (Table V-4 with the i.n.i.d. staircase) is what scripts/staircase-table.mjs prints', async () => {
    const { stdout } = await run(process.execPath, [join(root, 'scripts/staircase-table.mjs')], { cwd: root, timeout: 60_000 });
    expect(stdout).toMatch(/\| 2-D l1 staircase \(Table V-4\) \| 3\.9962 \| 1\.9862 \| 1\.3050 \| 0\.9546 \| 0\.7366 \| 0\.5856 \|/);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(stdout);
  });
});
