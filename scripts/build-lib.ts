/**
 * `npm run build:lib`: compiles src/ into lib/, the package's built ES modules with one `.d.ts`
 * per module (tsconfig.build.json; the `exports` of package.json point here).
 *
 * The sources import each other with `.ts` specifiers. tsc's `rewriteRelativeImportExtensions`
 * turns those into `.js` in the JavaScript it emits, but leaves declaration files and
 * `new URL('./x.ts', import.meta.url)` alone, so two transformers finish the job:
 * - declarations: every relative `.ts` specifier (imports, exports, `import('…')` types and the
 *   `declare module '…'` blocks through which modules extend the host's interfaces) becomes `.js`,
 *   so a consumer's compiler resolves them under any `moduleResolution`, with or without
 *   `allowImportingTsExtensions`;
 * - JavaScript: `new URL('./x.ts', import.meta.url)` (a Worker's file) becomes `./x.js`.
 * Worklets are committed as self-contained `.js` bundles beside their sources and are copied;
 * the ambient scatter's Worker is bundled into one self-contained file, because a module Worker
 * sees no import map, so on a page without a bundler it could not resolve `valibot`.
 * Finally every `new URL('./…', import.meta.url)` in lib/ is checked to name a file that exists.
 *
 * It skips the work when lib/ was built from exactly these inputs (a hash of src/, the configs,
 * this script and the lock file, kept in node_modules/.cache): `npm pack` runs it every time.
 * `--force` builds anyway.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type TypeScript from 'typescript';

// Loaded only when there is something to build: the up-to-date check stays quick.
let ts: typeof TypeScript;

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');
const lib = join(root, 'lib');
const stamp = join(root, 'node_modules/.cache/cairn-lib-inputs');

/** `./a.ts` → `./a.js`; anything else (bare names, `.json`, `.js`) unchanged. */
export function jsSpecifier(specifier: string): string {
  return /^\.\.?\//.test(specifier) && specifier.endsWith('.ts') && !specifier.endsWith('.d.ts')
    ? specifier.slice(0, -3) + '.js'
    : specifier;
}

function rewriteLiteral(factory: TypeScript.NodeFactory, node: TypeScript.Expression | undefined): TypeScript.StringLiteral | undefined {
  if (!node || !ts.isStringLiteral(node)) return undefined;
  const next = jsSpecifier(node.text);
  return next === node.text ? undefined : factory.createStringLiteral(next);
}

/** Relative `.ts` specifiers in declaration files → `.js`. */
const declarationSpecifiers: TypeScript.TransformerFactory<TypeScript.SourceFile | TypeScript.Bundle> = (context) => {
  const { factory } = context;
  const visit = (node: TypeScript.Node): TypeScript.Node => {
    if (ts.isImportDeclaration(node)) {
      const literal = rewriteLiteral(factory, node.moduleSpecifier);
      if (literal) node = factory.updateImportDeclaration(node, node.modifiers, node.importClause, literal, node.attributes);
    } else if (ts.isExportDeclaration(node)) {
      const literal = rewriteLiteral(factory, node.moduleSpecifier);
      if (literal)
        node = factory.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, literal, node.attributes);
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      const literal = rewriteLiteral(factory, node.name);
      if (literal) node = factory.updateModuleDeclaration(node, node.modifiers, literal, node.body);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = rewriteLiteral(factory, node.argument.literal as TypeScript.Expression);
      if (literal)
        node = factory.updateImportTypeNode(
          node,
          factory.updateLiteralTypeNode(node.argument, literal),
          node.attributes,
          node.qualifier,
          node.typeArguments,
          node.isTypeOf,
        );
    }
    return ts.visitEachChild(node, visit, context);
  };
  return (file) => ts.visitNode(file, visit) as TypeScript.SourceFile | TypeScript.Bundle;
};

function isImportMetaUrl(node: TypeScript.Expression): boolean {
  return (
    ts.isPropertyAccessExpression(node) &&
    node.name.text === 'url' &&
    ts.isMetaProperty(node.expression) &&
    node.expression.keywordToken === ts.SyntaxKind.ImportKeyword
  );
}

/** `new URL('./x.ts', import.meta.url)` → `new URL('./x.js', import.meta.url)` in emitted JavaScript. */
const workerUrls: TypeScript.TransformerFactory<TypeScript.SourceFile> = (context) => {
  const { factory } = context;
  const visit = (node: TypeScript.Node): TypeScript.Node => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL' && node.arguments?.length === 2) {
      const [first, second] = node.arguments;
      const literal = rewriteLiteral(factory, first);
      if (literal && isImportMetaUrl(second!))
        node = factory.updateNewExpression(node, node.expression, node.typeArguments, [literal, second!]);
    }
    return ts.visitEachChild(node, visit, context);
  };
  return (file) => ts.visitNode(file, visit) as TypeScript.SourceFile;
};

function compile(): void {
  const configPath = join(root, 'tsconfig.build.json');
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) });
  if (!config) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
  const before = ts.getPreEmitDiagnostics(program);
  if (before.length > 0) fail(before);
  const result = program.emit(undefined, undefined, undefined, false, { after: [workerUrls], afterDeclarations: [declarationSpecifiers] });
  if (result.diagnostics.length > 0) fail(result.diagnostics);
}

function fail(diagnostics: readonly TypeScript.Diagnostic[]): never {
  const host: TypeScript.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  };
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.exit(1);
}

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Every `new URL('./…', import.meta.url)` in a JavaScript file: the files it needs beside it. */
export function moduleRelativeUrls(code: string): string[] {
  return [...code.matchAll(/new URL\(\s*(['"])(\.\.?\/[^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g)].map((m) => m[2]!);
}

/** A hash of everything lib/ is built from. */
export function inputsHash(): string {
  const hash = createHash('sha256');
  const inputs = [
    ...files(src),
    ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/build-lib.ts', 'scripts/bundle-worklet.ts'].map((f) =>
      join(root, f),
    ),
  ];
  for (const file of inputs.sort()) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

async function main(): Promise<void> {
  const started = performance.now();
  const inputs = inputsHash();
  if (
    !process.argv.includes('--force') &&
    existsSync(join(lib, 'core/index.js')) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8') === inputs
  ) {
    console.log('lib/ is up to date with its sources (npm run build:lib -- --force rebuilds it)');
    return;
  }
  rmSync(stamp, { force: true });
  rmSync(lib, { recursive: true, force: true });
  ts = (await import('typescript')).default;
  const { bundleWorklet } = await import('./bundle-worklet.ts');
  compile();
  // Worklets: committed, self-contained bundles next to the file that loads them.
  for (const file of files(lib)) {
    if (!file.endsWith('.js')) continue;
    for (const url of moduleRelativeUrls(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), url);
      const source = join(src, relative(lib, target));
      if (!existsSync(target) && existsSync(source) && source.endsWith('.js')) {
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(source, target);
      }
    }
  }
  // The scatter Worker: tsc's per-file output imports valibot by name; replace it with one file.
  const worker = join(lib, 'ambient/scatter-worker.js');
  await bundleWorklet({
    entry: join(src, 'ambient/scatter-worker.ts'),
    file: worker,
    header: ['GENERATED by scripts/build-lib.ts from src/ambient/scatter-worker.ts and what it imports: one self-contained module Worker.'],
  });
  const missing: string[] = [];
  for (const file of files(lib)) {
    if (!file.endsWith('.js')) continue;
    for (const url of moduleRelativeUrls(readFileSync(file, 'utf8'))) {
      if (!existsSync(resolve(dirname(file), url))) missing.push(`${relative(root, file)}: ${url}`);
    }
  }
  if (missing.length > 0) throw new Error(`lib/ names files it does not have:\n${missing.join('\n')}`);
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, inputs);
  const count = [...files(lib)].filter((f) => f.endsWith('.js')).length;
  console.log(`lib/: ${count} modules with declarations in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
