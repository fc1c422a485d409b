/**
 * `npm run lint` runs this after ESLint. It fails when:
 * - runtime imports form a cycle between files anywhere in src/, app/, server/, bin/, bench/ or
 *   scripts/ (type-only imports — `import type`, `export type`, every named import marked `type` —
 *   are erased at build time and cannot cycle at run time, and dynamic `import()` is lazy, so
 *   neither counts between files);
 * - modules (src/<module>/) form a cycle one level up, counting every import, type-only and
 *   dynamic ones and `declare module` augmentations included: a type import is still a dependency
 *   of the module's declarations (its .d.ts), and module dependencies point one way;
 * - the host (src/world) or the core (src/core) names another module at all: the host is extended
 *   by modules (they declare their own services and stats keys), it never names them.
 * Prints each cycle as a chain of files.
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

/**
 * The files `file` imports at run time (relative specifiers that resolve to a source file); with
 * `all`, every file it names: type-only imports, dynamic `import()` and `declare module`
 * augmentations too.
 */
export function runtimeImports(file: string, code: string, all = false): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  if (all) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        if (argument && ts.isStringLiteral(argument)) specifiers.push(argument.text);
      } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) specifiers.push(node.name.text);
      else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
        specifiers.push(node.argument.literal.text);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
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
      if (all || !typeOnly) specifier = statement.moduleSpecifier.text;
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      (all || !statement.isTypeOnly)
    ) {
      specifier = statement.moduleSpecifier.text;
    }
    if (specifier !== null) specifiers.push(specifier);
  }
  const out: string[] = [];
  for (const specifier of specifiers) {
    if (!specifier.startsWith('.')) continue;
    const target = resolve(dirname(file), specifier);
    const candidates = [target, `${target}.ts`, join(target, 'index.ts')];
    const found = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
    if (found && !out.includes(found)) out.push(found);
  }
  return out;
}

/** Modules nothing below may name: the host and the core are named by modules, never the other way. */
export const FOUNDATIONS = ['core', 'world'] as const;

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
  const everything = new Map<string, string[]>();
  for (const file of DIRS.flatMap((dir) => sourceFiles(join(root, dir)))) {
    const code = readFileSync(file, 'utf8');
    graph.set(file, runtimeImports(file, code));
    everything.set(file, runtimeImports(file, code, true));
  }
  const cycles = findCycles(graph);
  for (const cycle of cycles)
    console.error(
      `import cycle: ${loopThrough(cycle, graph)
        .map((file) => relative(root, file))
        .join(' → ')}`,
    );
  // One level up: src/<module> → src/<other module>, every import counted, with one example per edge.
  const moduleOf = (file: string): string | null => /^src\/([^/]+)\//.exec(relative(root, file))?.[1] ?? null;
  const modules = new Map<string, string[]>();
  const example = new Map<string, string>();
  for (const [file, imports] of everything) {
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
  // The host and the core name no module (core names not even the host).
  const named: string[] = [];
  for (const foundation of FOUNDATIONS)
    for (const to of modules.get(foundation) ?? [])
      if (foundation === 'core' || !(FOUNDATIONS as readonly string[]).includes(to))
        named.push(`src/${foundation} names ${to} (${example.get(`${foundation}>${to}`)})`);
  for (const line of named) console.error(line);
  if (cycles.length || moduleCycles.length || named.length) {
    console.error(
      `${cycles.length} file and ${moduleCycles.length} module import cycle(s), ${named.length} foundation import(s). Break cycles by moving the shared piece down (or, between files, \`import type\`); a module extends the host by declaration merging instead of the host naming it.`,
    );
    process.exit(1);
  }
  console.log(`no import cycles in ${graph.size} files and ${modules.size} modules`);
}
