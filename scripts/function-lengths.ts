/**
 * Function lengths, measured with the TypeScript compiler API: every function-like node (a
 * declaration, method, accessor, constructor, arrow or function expression) with its name and its
 * lines from the first line of its signature to its closing brace. A nested function counts inside
 * its parent too, since the parent is what a reader has to hold in mind.
 *
 *   npx tsx scripts/function-lengths.ts [--max 120] <file or folder>...
 *
 * prints the functions over --max (every function, longest first, without it) and exits 1 if any.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

export interface FunctionLength {
  file: string;
  name: string;
  /** 1-based line of the function's first line. */
  line: number;
  lines: number;
}

function nameOf(node: ts.Node): string {
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) ||
      ts.isFunctionExpression(node)) &&
    node.name
  ) {
    return node.name.getText();
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  // `const f = () => …`, `{ f: () => … }`, `class { f = () => … }`: the function takes the name it is bound to.
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) &&
    parent.name
  ) {
    return parent.name.getText();
  }
  return '<anonymous>';
}

/** Every function in one TypeScript source text. */
export function functionLengthsOf(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: nameOf(node), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The .ts files (tests left out) under each path, in a stable order. */
export function sourceFilesUnder(paths: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) walk(join(path, entry));
    } else if (/\.tsx?$/.test(path) && !/\.test\.tsx?$/.test(path) && !path.endsWith('.d.ts')) {
      files.push(path);
    }
  };
  for (const path of paths) walk(path);
  return files;
}

/** Every function in the source files under `paths`, longest first. */
export function functionLengths(paths: readonly string[]): FunctionLength[] {
  return sourceFilesUnder(paths)
    .flatMap((file) => functionLengthsOf(file, readFileSync(file, 'utf8')))
    .sort((a, b) => b.lines - a.lines);
}

function main(argv: readonly string[]): number {
  const maxAt = argv.indexOf('--max');
  const max = maxAt >= 0 ? Number(argv[maxAt + 1]) : undefined;
  if (max !== undefined && !Number.isInteger(max)) {
    process.stderr.write('function-lengths: --max needs a whole number of lines\n');
    return 2;
  }
  const paths = argv.filter((_, i) => maxAt < 0 || (i !== maxAt && i !== maxAt + 1));
  if (paths.length === 0) {
    process.stderr.write('function-lengths: name at least one file or folder\n');
    return 2;
  }
  const shown = functionLengths(paths).filter((f) => max === undefined || f.lines > max);
  for (const f of shown) process.stdout.write(`${f.lines}\t${f.file}:${f.line}\t${f.name}\n`);
  return max !== undefined && shown.length > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = main(process.argv.slice(2));
}
