import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { allExamples, extractExamples } from '../../docs/extract.ts';
import { rewriteExample } from '../../docs/rewrite.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

describe("extracting the docs' examples", () => {
  it('takes ```ts blocks with the line they start on, and leaves other languages as text', () => {
    const markdown = [
      '# Title',
      '',
      '```ts',
      "import { x } from 'cairn/core';",
      'x();',
      '```',
      '',
      '```sh',
      'npm test',
      '```',
      '- item',
      '  ```typescript',
      '  const y = 1;',
      '  ```',
      '',
    ].join('\n');
    expect(extractExamples(markdown, 'a.md')).toEqual([
      { file: 'a.md', line: 4, code: "import { x } from 'cairn/core';\nx();\n" },
      { file: 'a.md', line: 13, code: 'const y = 1;\n' },
    ]);
  });

  it('does not end a block at a fence of another length or one with text after it', () => {
    const markdown = ['````ts', 'const a = `', '```', '`;', '````'].join('\n');
    expect(extractExamples(markdown, 'b.md')).toEqual([{ file: 'b.md', line: 2, code: 'const a = `\n```\n`;\n' }]);
  });

  it('finds examples in README.md, DEVELOPERS.md and docs/*.md, each importing Cairn through its public entry points (cairn/<module>), never through a path', () => {
    const examples = allExamples(ROOT);
    expect(examples.length).toBeGreaterThan(0);
    const relative = examples.filter(
      (example) => /from\s+['"]\.{1,2}\//.test(example.code) || /import\(\s*['"]\.{1,2}\//.test(example.code),
    );
    expect(relative.map(({ file, line }) => `${file}:${line}`)).toEqual([]);
  });

  it('turns static imports into awaited dynamic ones and drops type-only imports', async () => {
    const code = [
      "import { a, b as c, type T } from 'cairn/core';",
      "import d, * as e from 'three';",
      "import type { U } from 'cairn/world';",
      'a(c, d, e);',
    ].join('\n');
    const out = await rewriteExample(code, 'x.md:3', async () => true);
    expect(out).toContain(`const __example0 = await import("cairn/core"); const { a, b: c } = __example0;`);
    expect(out).toContain(`const __example1 = await import("three"); const d = __example1.default; const e = __example1;`);
    expect(out).not.toContain('cairn/world');
    expect(out).toContain('a(c, d, e);');
  });

  it('makes an unresolvable import or a syntax error an error thrown when the example runs, naming where', async () => {
    const unresolved = await rewriteExample(
      "import { x } from '../src/core/index.ts';\nx();",
      'docs/a.md:10',
      async (s) => !s.startsWith('.'),
    );
    expect(unresolved).toContain("cannot resolve import '../src/core/index.ts'");
    expect(unresolved).toContain('Promise.reject');
    const broken = await rewriteExample('const a = f(1, (x) => …);', 'docs/b.md:20', async () => true);
    expect(broken.startsWith('throw new SyntaxError("syntax error on line 1 of the block at docs/b.md:20')).toBe(true);
  });
});
