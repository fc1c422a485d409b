import ts from 'typescript';

/**
 * Turns one docs example into a module that cannot break the page build: its static imports become
 * `await import(…)` (so a name the module does not export is `undefined` at run time, not a build
 * error), imports no resolver can find and syntax errors become errors thrown when the example
 * runs (the runner names the example's file and line). Type-only imports are dropped.
 *
 * @param resolvable whether the build can resolve an import specifier from the example
 */
export async function rewriteExample(code: string, where: string, resolvable: (specifier: string) => Promise<boolean>): Promise<string> {
  const syntax =
    ts.transpileModule(code, { reportDiagnostics: true, compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } })
      .diagnostics ?? [];
  if (syntax.length > 0) {
    const first = syntax[0]!;
    const line = first.file && first.start !== undefined ? first.file.getLineAndCharacterOfPosition(first.start).line + 1 : 0;
    return thrower(`syntax error on line ${line} of the block at ${where}: ${ts.flattenDiagnosticMessageText(first.messageText, ' ')}`);
  }
  const source = ts.createSourceFile('example.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const edits: Array<{ start: number; end: number; text: string }> = [];
  let n = 0;
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    const clause = statement.importClause;
    const range = { start: statement.getStart(source), end: statement.getEnd() };
    if (clause?.isTypeOnly) {
      edits.push({ ...range, text: '' });
      continue;
    }
    const module = `__example${n++}`;
    const load = (await resolvable(specifier))
      ? `await import(${JSON.stringify(specifier)})`
      : `await Promise.reject(new Error(${JSON.stringify(`cannot resolve import '${specifier}' (examples import Cairn as cairn-world/<module>)`)}))`;
    const lines = [`const ${module} = ${load};`];
    if (clause?.name) lines.push(`const ${clause.name.text} = ${module}.default;`);
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) lines.push(`const ${bindings.name.text} = ${module};`);
    if (bindings && ts.isNamedImports(bindings)) {
      const names = bindings.elements
        .filter((element) => !element.isTypeOnly)
        .map((element) => (element.propertyName ? `${element.propertyName.getText(source)}: ${element.name.text}` : element.name.text));
      if (names.length > 0) lines.push(`const { ${names.join(', ')} } = ${module};`);
    }
    edits.push({ ...range, text: lines.join(' ') });
  }
  let out = code;
  for (const edit of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return `${out}\nexport {};\n`;
}

function thrower(message: string): string {
  return `throw new SyntaxError(${JSON.stringify(message)});\nexport {};\n`;
}
