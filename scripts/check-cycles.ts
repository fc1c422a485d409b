/**
 * `npm run lint` runs this after ESLint: fails when runtime imports form a cycle anywhere in src/,
 * app/, server/, bin/, bench/ or scripts/. Type-only imports (`import type`, `export type`, or
 * every named import marked `type`) are erased at build time and cannot cycle at run time, and
 * dynamic `import()` is lazy, so neither counts. Prints each cycle as a chain of files.
 * Modules (src/<module>/) are checked the same way one level up: world importing anim while anim
 * imports world is a cycle between modules even when no two files import each other.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const DIRS = ['src', 'app', 'server', 'bin', 'bench', 'scripts'];

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files `file` imports at run time (relative specifiers that resolve to a source file). */
export function runtimeImports(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    let specifier: string | null = null;
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) specifier = statement.moduleSpecifier.text;
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      !statement.isTypeOnly
    ) {
      specifier = statement.moduleSpecifier.text;
    }
    if (specifier === null || !specifier.startsWith('.')) continue;
    const target = resolve(dirname(file), specifier);
    const candidates = [target, `${target}.ts`, join(target, 'index.ts')];
    const found = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
    if (found) out.push(found);
  }
  return out;
}

/** Every cycle (strongly connected component of two or more files, or a file importing itself). */
export function findCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.reverse());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return cycles;
}

/** One concrete loop through a component, for the message: a → b → … → a. */
function loopThrough(component: string[], graph: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const graph = new Map<string, string[]>();
  for (const file of DIRS.flatMap((dir) => sourceFiles(join(root, dir)))) graph.set(file, runtimeImports(file, readFileSync(file, 'utf8')));
  const cycles = findCycles(graph);
  for (const cycle of cycles)
    console.error(
      `import cycle: ${loopThrough(cycle, graph)
        .map((file) => relative(root, file))
        .join(' → ')}`,
    );
  // One level up: src/<module> → src/<other module>, with one example import per edge.
  const moduleOf = (file: string): string | null => /^src\/([^/]+)\//.exec(relative(root, file))?.[1] ?? null;
  const modules = new Map<string, string[]>();
  const example = new Map<string, string>();
  for (const [file, imports] of graph) {
    const from = moduleOf(file);
    if (from === null) continue;
    if (!modules.has(from)) modules.set(from, []);
    for (const target of imports) {
      const to = moduleOf(target);
      if (to === null || to === from) continue;
      if (!modules.get(from)!.includes(to)) modules.get(from)!.push(to);
      if (!example.has(`${from}>${to}`)) example.set(`${from}>${to}`, `${relative(root, file)} → ${relative(root, target)}`);
    }
  }
  const moduleCycles = findCycles(modules);
  for (const cycle of moduleCycles) {
    const loop = loopThrough(cycle, modules);
    const edges = loop.slice(1).map((to, i) => example.get(`${loop[i]}>${to}`));
    console.error(`module cycle: ${loop.join(' → ')} (${edges.join('; ')})`);
  }
  if (cycles.length || moduleCycles.length) {
    console.error(
      `${cycles.length} file and ${moduleCycles.length} module import cycle(s). Break them (move the shared piece down, or import types with \`import type\`).`,
    );
    process.exit(1);
  }
  console.log(`no import cycles in ${graph.size} files and ${modules.size} modules`);
}
