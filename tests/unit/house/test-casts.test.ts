import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const BROWSER_TESTS = resolve(ROOT, 'tests/browser');

/**
 * The casts on page-state reads in one file: `x as { … }` and `x as unknown as T` where `x` or `T`
 * names `cairn`. `window.cairn` is typed (CairnGlobal, CairnStats and every module's and page's
 * declaration-merged keys), so a browser test reads it as declared and narrows with `!`, `in` or
 * `expect(…).toBeDefined()`; a cast there hides a key the page no longer publishes or a type that
 * drifted from the test's copy of it.
 */
function cairnCasts(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node)) {
      const inner = node.expression;
      const throughUnknown = ts.isAsExpression(inner) && inner.type.kind === ts.SyntaxKind.UnknownKeyword;
      const literal = ts.isTypeLiteralNode(node.type) || (ts.isUnionTypeNode(node.type) && node.type.types.some(ts.isTypeLiteralNode));
      const read = throughUnknown ? inner.expression : inner;
      if ((literal || throughUnknown) && /\bcairn\b/.test(`${read.getText(file)} ${node.type.getText(file)}`)) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
        found.push(`${fileName}:${line + 1}: ${node.getText(file).split('\n')[0]}`);
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('browser tests read window.cairn through its types', () => {
  it('finds the casts it is meant to find (and not their typed replacements)', () => {
    const source = [
      'page.evaluate(() => (window.cairn.stage as { frames(n: number): Promise<void> }).frames(2));',
      'page.evaluate(() => (window as unknown as { cairn: { ready: boolean } }).cairn.ready);',
      'page.evaluate(() => (window.cairn.world as unknown as World).player);',
      'page.waitForFunction(() => (window.cairn.stats.anim as { phase?: string } | undefined)?.phase === "ready");',
      'page.evaluate(() => window.cairn.stage!.frames(2));',
      'const { token } = (await response.json()) as { token: string };',
    ].join('\n');
    expect(cairnCasts('sample.ts', source).map((c) => c.split(':')[1])).toEqual(['1', '2', '3', '4']);
  });

  it('has no `as { … }` or `as unknown as` cast on a window.cairn read in tests/browser', () => {
    const files = readdirSync(BROWSER_TESTS).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    const casts = files.flatMap((name) => cairnCasts(`tests/browser/${name}`, readFileSync(resolve(BROWSER_TESTS, name), 'utf8')));
    expect(casts).toEqual([]);
  });
});
