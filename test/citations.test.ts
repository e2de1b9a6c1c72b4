// Every citation of the documentation, in code, tests, scripts and README, resolves: the file
// exists under docs/, and the quoted section is one of its headings. A citation reads
// `docs/<file>.md, "Heading"` (also without the comma, in parentheses, or wrapped over lines
// inside a comment).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

/** The headings of a docs file, as written after the #s. */
function headings(file: string): Set<string> {
  return new Set(
    readFileSync(join(root, 'docs', file), 'utf8')
      .split('\n')
      .flatMap((line) => /^#+ (.+)$/.exec(line)?.[1]?.trim() ?? []),
  );
}

/** The citations in a text, each `{ file, heading? }`; a heading's line breaks and comment markers are undone. */
function citations(text: string): Array<{ file: string; heading?: string }> {
  return [...text.matchAll(/docs\/([\w.-]+\.md)(?:,?\s*(?:\*\s*|\/\/\s*|#\s*)?(?:sections? )?\(?"([^"]+)")?/g)].map((m) => ({
    file: m[1]!,
    heading: m[2]?.replace(/\s*\n\s*(?:\*|\/\/|#)?\s*/g, ' ').trim(),
  }));
}

/** What fails to resolve among the citations of `text`. */
function unresolved(text: string): string[] {
  return citations(text).flatMap(({ file, heading }) => {
    if (!existsSync(join(root, 'docs', file))) return [`docs/${file} does not exist`];
    if (heading !== undefined && !headings(file).has(heading)) return [`docs/${file} has no heading "${heading}"`];
    return [];
  });
}

describe('documentation citations', () => {
  it('the checker finds a wrong file, a wrong heading and a wrapped one (the test has power)', () => {
    expect(unresolved('see docs/nothing.md')).toEqual(['docs/nothing.md does not exist']);
    expect(unresolved('(docs/noise.md, "Samplerz")')).toEqual(['docs/noise.md has no heading "Samplerz"']);
    expect(unresolved(' * (docs/mechanisms.md, "Floating-point\n * safety")')).toEqual([]);
    expect(citations('docs/accounting.md "Calibration"')).toEqual([{ file: 'accounting.md', heading: 'Calibration' }]);
  });

  it('every citation in the repository resolves to a docs file and one of its headings', () => {
    const files = execFileSync('git', ['ls-files', 'src', 'assembly', 'test', 'scripts', 'bench', 'examples', 'demo', 'docs', 'README.md', 'CHANGELOG.md'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.(ts|mjs|js|cjs|py|md|html)$/.test(f) && !f.startsWith('test/runtimes/binaries/') && f !== 'test/citations.test.ts');
    const problems = files.flatMap((f) => unresolved(readFileSync(join(root, f), 'utf8')).map((p) => `${f}: ${p}`));
    expect(problems).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });
});
