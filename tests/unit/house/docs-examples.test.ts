import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { allExamples, extractExamples } from '../../docs/extract.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

describe("extracting the docs' examples", () => {
  it('takes ```ts blocks with the line they start on, and leaves other languages as text', () => {
    const markdown = ['# Title', '', '```ts', "import { x } from 'cairn/core';", 'x();', '```', '', '```sh', 'npm test', '```', '- item', '  ```typescript', '  const y = 1;', '  ```', ''].join('\n');
    expect(extractExamples(markdown, 'a.md')).toEqual([
      { file: 'a.md', line: 4, code: "import { x } from 'cairn/core';\nx();\n" },
      { file: 'a.md', line: 13, code: 'const y = 1;\n' },
    ]);
  });

  it('does not end a block at a fence of another length or one with text after it', () => {
    const markdown = ['````ts', 'const a = `', '```', '`;', '````'].join('\n');
    expect(extractExamples(markdown, 'b.md')).toEqual([{ file: 'b.md', line: 2, code: 'const a = `\n```\n`;\n' }]);
  });

  it("finds examples in README.md and docs/*.md, each importing Cairn through its public entry points (cairn/<module>), never through a path", () => {
    const examples = allExamples(ROOT);
    expect(examples.length).toBeGreaterThan(0);
    const relative = examples.filter((example) => /from\s+['"]\.{1,2}\//.test(example.code) || /import\(\s*['"]\.{1,2}\//.test(example.code));
    expect(relative.map(({ file, line }) => `${file}:${line}`)).toEqual([]);
  });
});
