import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { allExamples } from './extract.ts';
import { rewriteExample } from './rewrite.ts';

/** The module the examples page imports: `examples`, one entry per ```ts block, in file order. */
export const DOCS_EXAMPLES_ID = 'virtual:cairn-docs-examples';
const RESOLVED_ID = '\0' + DOCS_EXAMPLES_ID;

/**
 * Vite plugin behind app/docs-examples.html: writes each ```ts block of README.md, DEVELOPERS.md and docs/*.md
 * as a module of its own (under node_modules/.cache, so the normal TypeScript transform and the
 * `cairn-world/<module>` alias apply) and serves `virtual:cairn-docs-examples`, which lists them with
 * their file and line and imports each one only when asked.
 */
export function docsExamples(root: string): Plugin {
  const dir = join(root, 'node_modules/.cache/cairn-docs-examples');
  let index = '';
  return {
    name: 'cairn-docs-examples',
    async buildStart() {
      const examples = allExamples(root);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const entries: string[] = [];
      for (const [i, example] of examples.entries()) {
        const path = join(dir, `${String(i).padStart(3, '0')}-${example.file.replace(/[^\w.-]/g, '_')}-${example.line}.ts`);
        // A broken example must fail its own run, never the build of every page.
        const code = await rewriteExample(
          example.code,
          `${example.file}:${example.line}`,
          async (specifier) => (await this.resolve(specifier, path)) !== null,
        );
        writeFileSync(path, code);
        this.addWatchFile(join(root, example.file));
        entries.push(`  { file: ${JSON.stringify(example.file)}, line: ${example.line}, load: () => import(${JSON.stringify(path)}) },`);
      }
      index = `export const examples = [\n${entries.join('\n')}\n];\n`;
    },
    resolveId(id) {
      return id === DOCS_EXAMPLES_ID ? RESOLVED_ID : null;
    },
    load(id) {
      return id === RESOLVED_ID ? index : null;
    },
  };
}
