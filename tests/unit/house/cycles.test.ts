import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCycles, runtimeImports } from '../../../scripts/check-cycles.ts';

describe('the import-cycle check', () => {
  it('counts runtime imports and re-exports, not type-only imports or packages', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-cycles-'));
    for (const name of ['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts']) writeFileSync(join(dir, name), '');
    const code = [
      "import { x } from './a.ts';",
      "import type { Y } from './b.ts';",
      "import { type Z } from './c.ts';",
      "export * from './d.ts';",
      "export type { W } from './e.ts';",
      "import { Vector3 } from 'three';",
      "const later = () => import('./e.ts');",
    ].join('\n');
    expect(runtimeImports(join(dir, 'main.ts'), code)).toEqual([join(dir, 'a.ts'), join(dir, 'd.ts')]);
  });

  it('names every dependency between modules with `all`: type-only, dynamic, import types and augmentations', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-cycles-'));
    for (const name of ['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts', 'f.ts']) writeFileSync(join(dir, name), '');
    const code = [
      "import type { Y } from './b.ts';",
      "export type { W } from './e.ts';",
      "const later = () => import('./a.ts');",
      "let typed: import('./c.ts').T;",
      "declare module './d.ts' { interface Registry { x: number } }",
      "import { type Z } from './f.ts';",
    ].join('\n');
    expect(new Set(runtimeImports(join(dir, 'main.ts'), code, true))).toEqual(
      new Set(['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts', 'f.ts'].map((name) => join(dir, name))),
    );
  });

  it('finds a cycle of any length and a self-import, and nothing in a tree', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(findCycles(graph).map((cycle) => [...cycle].sort())).toEqual([['a', 'b', 'c'], ['e']]);
    expect(
      findCycles(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });
});
