// Every ```js and ```ts block of README.md, each on its own as a user would paste it: it
// type-checks under the repository's compiler options against the built package's types, and
// runs against the built package, exiting 0 with nothing on standard error. Each block is a
// module of its own in a temporary directory whose node_modules/dpnoise links to this repository,
// so 'dpnoise' resolves through package.json's exports to dist/, for tsc and Node alike.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

interface Block {
  /** README line of the opening fence. */
  line: number;
  lang: 'js' | 'ts';
  code: string;
  /** tsc's errors, as README.md:line:column message. */
  errors: string[];
}

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks: Block[] = [...readme.matchAll(/^```(js|ts)\n([\s\S]*?)^```$/gm)].map((match) => ({
  line: readme.slice(0, match.index).split('\n').length,
  lang: match[1] as Block['lang'],
  code: match[2]!,
  errors: [],
}));

describe('README code blocks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpnoise-readme-'));
  const file = (block: Block, extension: string) => join(dir, `line-${block.line}${extension}`);
  /** Errors outside the blocks: the options, the package's types. */
  const elsewhere: string[] = [];

  // One program for all blocks (a few seconds, against a second per block); .mts files are
  // modules, so the blocks' names never clash.
  beforeAll(() => {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'dpnoise'), 'dir');
    const byFile = new Map(blocks.map((block) => [file(block, '.mts'), block]));
    for (const [path, block] of byFile) writeFileSync(path, block.code);
    const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const options = { ...config.options, noEmit: false, outDir: dir, rootDir: dir, typeRoots: [join(root, 'node_modules', '@types')] };
    const program = ts.createProgram([...byFile.keys()], options);
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const block = d.file && byFile.get(d.file.fileName);
      if (block && d.start !== undefined) {
        const { line, character } = d.file!.getLineAndCharacterOfPosition(d.start);
        block.errors.push(`README.md:${block.line + line + 1}:${character + 1} ${message}`);
      } else elsewhere.push(`${d.file?.fileName ?? ''} ${message}`);
    }
    // ```ts blocks run as tsc emits them (.mjs); ```js blocks run as written.
    program.emit();
    for (const block of blocks) if (block.lang === 'js') writeFileSync(file(block, '.mjs'), block.code);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are found, and compile with no error outside them', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(elsewhere).toEqual([]);
  });

  it.each(blocks.map((block) => [block.line, block.lang, block] as const))('README.md:%i (%s) type-checks and runs on its own', async (_line, _lang, block) => {
    expect(block.errors).toEqual([]);
    const { stderr } = await promisify(execFile)(process.execPath, [file(block, '.mjs')], { cwd: dir, timeout: 60_000 });
    expect(stderr).toBe('');
  });
});
