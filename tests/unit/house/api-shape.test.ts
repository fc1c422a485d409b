import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The house API shape (DEVELOPERS.md "One API shape"), checked with the TypeScript compiler over
 * all of src/. Each offence is named `rule path:Class` (with the member where there is one):
 * - `defaults`: a constructor takes a `*Options` parameter with optional fields and resolves no
 *   defaults: it calls no `withDefaults`, no `resolve…Options` that calls `withDefaults`, and hands
 *   its options to no other constructor (Error subclasses are exempt: `ErrorOptions` is the
 *   platform's).
 * - `handle`: a public `group`/`root`/`mesh`/`scene` property holding a three object (the scene
 *   handle of a class is `object`).
 * - `progress`: an `onProgress` not typed `ProgressListener`, a `progress` not typed `Progress`.
 * - `callback`: an `on…` function in a class's constructor options (classes emit events).
 */

const ROOT = join(import.meta.dirname, '../../..');

const HANDLE_NAMES = new Set(['group', 'root', 'mesh', 'scene']);

/** The offences in `files` of `program`, named relative to `root`. */
function scanApiShape(program: ts.Program, files: readonly string[], root: string): string[] {
  const checker = program.getTypeChecker();
  const offences: string[] = [];
  const wanted = new Set(files.map((f) => ts.sys.resolvePath(f)));

  const callsWithDefaults = (node: ts.Node): boolean => {
    let found = false;
    const visit = (n: ts.Node): void => {
      if (found) return;
      if (ts.isCallExpression(n) && calleeName(n) === 'withDefaults') found = true;
      else ts.forEachChild(n, visit);
    };
    visit(node);
    return found;
  };

  /** Whether `ctor` resolves its options (see the file's doc). */
  const resolves = (ctor: ts.ConstructorDeclaration, param: ts.ParameterDeclaration): boolean => {
    if (!ctor.body) return true;
    const name = ts.isIdentifier(param.name) ? param.name.text : null;
    let found = false;
    const handsOn = (arg: ts.Expression): boolean =>
      (ts.isIdentifier(arg) && arg.text === name) ||
      (ts.isObjectLiteralExpression(arg) &&
        arg.properties.some((p) => ts.isSpreadAssignment(p) && ts.isIdentifier(p.expression) && p.expression.text === name));
    const visit = (n: ts.Node): void => {
      if (found) return;
      if (ts.isCallExpression(n)) {
        const callee = calleeName(n);
        if (callee === 'withDefaults') found = true;
        else if (callee && /^resolve\w*Options$/.test(callee)) {
          const declaration = checker.getSymbolAtLocation(n.expression)?.declarations?.[0];
          const symbol =
            declaration && ts.isImportSpecifier(declaration) ? checker.getAliasedSymbol(checker.getSymbolAtLocation(n.expression)!) : null;
          const target = symbol?.declarations?.[0] ?? declaration;
          if (target && callsWithDefaults(target)) found = true;
        } else if (n.expression.kind === ts.SyntaxKind.SuperKeyword && n.arguments.some(handsOn)) found = true;
      }
      if (ts.isNewExpression(n) && n.arguments?.some(handsOn)) found = true;
      if (!found) ts.forEachChild(n, visit);
    };
    visit(ctor.body);
    return found;
  };

  const extendsError = (node: ts.ClassDeclaration): boolean => {
    let type: ts.Type | undefined = checker.getTypeAtLocation(node);
    for (let depth = 0; type && depth < 10; depth++) {
      const bases: ts.Type[] = type.isClassOrInterface() ? checker.getBaseTypes(type) : [];
      if (bases.some((b) => b.getSymbol()?.getName() === 'Error')) return true;
      type = bases[0];
    }
    return false;
  };

  const isObject3D = (type: ts.Type): boolean => {
    const nonNull = checker.getNonNullableType(type);
    const parts = nonNull.isUnion() ? nonNull.types : [nonNull];
    return parts.some((t) => t.getProperty('isObject3D') !== undefined);
  };

  // The type as written, on one line and without its doc comments (a field's type may span lines to document its parts).
  const typeText = (node: ts.TypeNode | undefined): string =>
    (node?.getText() ?? '')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\s+/g, ' ')
      .split('|')
      .map((s) => s.trim())
      .filter((s) => s !== 'null' && s !== 'undefined')
      .join(' | ');

  for (const sf of program.getSourceFiles()) {
    if (!wanted.has(ts.sys.resolvePath(sf.fileName))) continue;
    const rel = relative(root, sf.fileName);
    const visit = (n: ts.Node): void => {
      if (ts.isClassDeclaration(n) && n.name) {
        const where = `${rel}:${n.name.text}`;
        const ctor = n.members.find(ts.isConstructorDeclaration);
        for (const param of ctor?.parameters ?? []) {
          if (!param.type || !/Options\b/.test(param.type.getText())) continue;
          const type = checker.getNonNullableType(checker.getTypeAtLocation(param));
          const properties = checker.getPropertiesOfType(type);
          const optional = properties.some((p) => (p.flags & ts.SymbolFlags.Optional) !== 0);
          if (optional && !extendsError(n) && !resolves(ctor!, param)) offences.push(`defaults ${where}`);
          for (const p of properties) {
            if (!/^on[A-Z]/.test(p.name)) continue;
            const pType = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(p, param));
            if (pType.getCallSignatures().length > 0) offences.push(`callback ${where}.${p.name}`);
          }
        }
        for (const m of n.members) {
          if (!(ts.isPropertyDeclaration(m) || ts.isGetAccessorDeclaration(m)) || !ts.isIdentifier(m.name)) continue;
          if (!HANDLE_NAMES.has(m.name.text)) continue;
          const hidden = ts.getCombinedModifierFlags(m) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected);
          if (!hidden && isObject3D(checker.getTypeAtLocation(m.name))) offences.push(`handle ${where}.${m.name.text}`);
        }
      }
      if (
        (ts.isPropertySignature(n) || ts.isPropertyDeclaration(n) || ts.isParameter(n) || ts.isMethodSignature(n)) &&
        ts.isIdentifier(n.name)
      ) {
        const name = n.name.text;
        const owner = ts.findAncestor(
          n.parent,
          (a) => ts.isClassDeclaration(a) || ts.isInterfaceDeclaration(a) || ts.isTypeAliasDeclaration(a) || ts.isFunctionDeclaration(a),
        );
        const where = `${rel}:${owner && 'name' in owner && owner.name && ts.isIdentifier(owner.name) ? owner.name.text : '?'}.${name}`;
        if (name === 'onProgress' && (ts.isMethodSignature(n) || !/^ProgressListener(<\w+>)?$/.test(typeText(n.type))))
          offences.push(`progress ${where}`);
        // Progress itself, or (an event's payload) an object whose `progress` field is one.
        if (name === 'progress' && !ts.isMethodSignature(n) && n.type && !/^(Progress|\{ progress: Progress;.*\})$/.test(typeText(n.type)))
          offences.push(`progress ${where}`);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return [...new Set(offences)].sort();
}

function calleeName(call: ts.CallExpression): string | null {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return null;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...tsFiles(path));
    else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  return { ...ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options, noEmit: true };
}

/** A program over in-memory files (plus the real lib files), for the check's own test. */
function memoryProgram(files: Record<string, string>): ts.Program {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    strict: true,
    noEmit: true,
    lib: ['lib.es2022.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (f) => files[f] ?? read(f);
  host.fileExists = (f) => f in files || exists(f);
  const dirExists = host.directoryExists?.bind(host);
  host.directoryExists = (d) => Object.keys(files).some((f) => f.startsWith(`${d}/`)) || (dirExists?.(d) ?? false);
  host.getSourceFile = (f, language) => {
    const text = host.readFile(f);
    return text === undefined ? undefined : ts.createSourceFile(f, text, language, true);
  };
  return ts.createProgram(Object.keys(files), options, host);
}

describe('the house API shape', () => {
  it('names each kind of offence, and passes the house shape', () => {
    const core = `
      export function withDefaults<T extends object>(d: T, o: Partial<T> = {}): T { return { ...d, ...o }; }
      export interface Progress { done: number; total: number | null }
      export type ProgressListener = (p: Progress) => void;
      export class Object3D { readonly isObject3D = true; }`;
    const bad = `
      import { Object3D, type Progress } from './core.ts';
      export interface SloppyOptions { size?: number; onReady?: () => void; onProgress?: (loaded: number, total: number) => void; onFlag?: boolean }
      export class Sloppy {
        readonly group = new Object3D();
        progress: { loaded: number } | null = null;
        readonly size: number;
        constructor(options: SloppyOptions = {}) { this.size = options.size ?? 1; }
      }
      export interface StateOptions { title: string }
      export class Resolved { constructor(options: StateOptions) { void options; } }
      export class Failure extends Error { constructor(message: string, options?: ErrorOptions) { super(message, options); } }
      export interface Loaded { progress?: Progress }`;
    const good = `
      import { Object3D, withDefaults, type ProgressListener } from './core.ts';
      export interface NeatOptions { size?: number }
      const NEAT_DEFAULTS: Required<NeatOptions> = { size: 1 };
      export class Neat {
        readonly object = new Object3D();
        readonly root = 'a string, not a three object';
        private readonly mesh = new Object3D();
        readonly size: number;
        constructor(options: NeatOptions = {}) { this.size = withDefaults(NEAT_DEFAULTS, options).size; void this.mesh; }
      }
      export function resolveWrapOptions(options: NeatOptions): Required<NeatOptions> { return withDefaults(NEAT_DEFAULTS, options); }
      export class Wrap { readonly size: number; constructor(options: NeatOptions) { this.size = resolveWrapOptions(options).size; } }
      export class Forward { readonly inner: Neat; constructor(options: NeatOptions) { this.inner = new Neat({ ...options }); } }
      export function load(options: { onProgress?: ProgressListener; onDone?: () => void } = {}): void { void options; }`;
    const files = { '/mem/core.ts': core, '/mem/bad.ts': bad, '/mem/good.ts': good };
    expect(scanApiShape(memoryProgram(files), ['/mem/bad.ts', '/mem/good.ts'], '/mem')).toEqual([
      'callback bad.ts:Sloppy.onProgress',
      'callback bad.ts:Sloppy.onReady',
      'defaults bad.ts:Sloppy',
      'handle bad.ts:Sloppy.group',
      'progress bad.ts:Sloppy.progress',
      'progress bad.ts:SloppyOptions.onProgress',
    ]);
  });

  it('holds in all of src/', () => {
    const files = tsFiles(join(ROOT, 'src'));
    const program = ts.createProgram(files, compilerOptions());
    const offences = scanApiShape(program, files, ROOT);
    expect(offences).toEqual([]);
  }, 120_000);
});
