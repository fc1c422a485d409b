import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One fenced ```ts block of a Markdown file. */
export interface DocExample {
  /** The Markdown file, relative to the repository root (e.g. `docs/net.md`). */
  file: string;
  /** 1-based line of the block's first code line. */
  line: number;
  code: string;
}

/** The Markdown files whose examples the suite runs: README.md, DEVELOPERS.md and docs/*.md. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), join(root, 'DEVELOPERS.md'), ...docs];
}

/**
 * Every ```ts (or ```typescript) fenced block of `markdown`, with the line it starts on. Other
 * languages (```sh, ```text, ```json…) are text, not examples. Fences may be indented (inside a
 * list); the block's lines lose that indentation.
 */
export function extractExamples(markdown: string, file: string): DocExample[] {
  const examples: DocExample[] = [];
  const lines = markdown.split('\n');
  let open: { line: number; indent: number; fence: string; code: string[] } | null = null;
  let skipping: string | null = null;
  lines.forEach((text, index) => {
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(text);
    if (open) {
      if (fence && fence[2]!.startsWith(open.fence) && text.trim() === fence[2]) {
        examples.push({ file, line: open.line, code: open.code.join('\n') + '\n' });
        open = null;
      } else open.code.push(text.slice(Math.min(open.indent, text.length - text.trimStart().length)));
      return;
    }
    if (skipping !== null) {
      if (fence && fence[2]!.startsWith(skipping) && text.trim() === fence[2]) skipping = null;
      return;
    }
    if (!fence) return;
    const language = fence[3]!.toLowerCase();
    if (language === 'ts' || language === 'typescript') open = { line: index + 2, indent: fence[1]!.length, fence: fence[2]!, code: [] };
    else skipping = fence[2]!;
  });
  return examples;
}

/** Every example of README.md, DEVELOPERS.md and docs/*.md under `root`, file names relative to `root`. */
export function allExamples(root: string): DocExample[] {
  return docFiles(root).flatMap((path) => extractExamples(readFileSync(path, 'utf8'), relative(root, path)));
}
