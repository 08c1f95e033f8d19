import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Node's globals and module loading, which a web page has none of.
const NODE_ONLY = new Set([
  'Buffer',
  'process',
  'require',
  'global',
  '__dirname',
  '__filename',
  'setImmediate',
]);

/**
 * What a module imports, type-only imports included (a web project compiling these sources, with the DOM's types
 * and not Node's, would read those too), and the Node-only names it uses.
 */
function readModule(name: string) {
  const source = ts.createSourceFile(
    name,
    readFileSync(new URL(name, import.meta.url), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  const imports: string[] = [];
  const nodeNames: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier)
      imports.push((n.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword)
      imports.push(n.arguments[0]?.getText(source) ?? '');
    else if (ts.isImportTypeNode(n)) imports.push(n.argument.getText(source));
    else if (ts.isIdentifier(n) && NODE_ONLY.has(n.text)) nodeNames.push(n.text);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return { imports, nodeNames };
}

/** Every module the web entry reaches, with what it imports and the Node-only names it uses. */
function webModuleGraph() {
  const graph = new Map<string, ReturnType<typeof readModule>>();
  const pending = ['web.ts'];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (graph.has(name)) continue;
    const module = readModule(name);
    graph.set(name, module);
    for (const specifier of module.imports)
      if (/^\.\/[\w-]+\.js$/.test(specifier)) pending.push(specifier.slice(2).replace(/\.js$/, '.ts'));
  }
  return graph;
}

describe('the web entry', () => {
  it('reaches no node: module, no package, and no module of the Node entry, in its code or its types', () => {
    const graph = webModuleGraph();
    const modules = [...graph.keys()];
    expect(modules).toEqual(
      expect.arrayContaining(['web.ts', 'web-event.ts', 'leaf-event.ts', 'signed-note.ts']),
    );
    for (const nodeOnly of ['index.ts', 'leaf.ts', 'merkle.ts', 'checkpoint.ts', 'input-shapes.ts'])
      expect(modules).not.toContain(nodeOnly);
    // Only modules of its own folder, by relative path: nothing else for a bundler to resolve.
    for (const [name, { imports }] of graph)
      for (const specifier of imports)
        expect(specifier, `${name} imports ${specifier}`).toMatch(/^\.\/[\w-]+\.js$/);
  });

  it("uses neither Buffer nor any other of Node's globals", () => {
    for (const [name, { nodeNames }] of webModuleGraph()) expect(nodeNames, name).toEqual([]);
  });

  it("would be caught otherwise: the Node entry's imports and Buffer, type-only imports included, are seen", () => {
    const checkpoint = readModule('checkpoint.ts');
    expect(checkpoint.imports).toEqual(expect.arrayContaining(['node:buffer', 'node:crypto']));
    expect(checkpoint.nodeNames).toContain('Buffer');
    expect(readModule('input-shapes.ts').imports).toContain('./trail-check.js');
  });
});
