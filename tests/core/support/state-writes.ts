import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './source-files.ts';

/**
 * Who writes a piece of session state, read from the source with the TypeScript parser. A
 * piece is named by the property that holds it (`memory.marks`, `this.#marks`: a private
 * field counts under its public name); a bare local of the same name is someone's own value
 * and is not counted. What counts as a write depends on the piece's shape (`WriteShape`).
 */

/** How a piece can be changed besides being assigned whole. */
export interface WriteShape {
  /** Methods that change the value in place (`push`, `add`, …). */
  readonly mutators?: readonly string[];
  /** Whether assigning one of its members (`counters.requests += 1`, `marks.length = 0`, `marks[0] = x`) counts. */
  readonly members?: boolean;
  /**
   * The class that holds the piece: `this.<name>` inside another class is that class's own
   * field of the same name (a fold lattice's `revision`), not the piece.
   */
  readonly holder?: string;
}

/** The array methods that change an array in place. */
export const ARRAY_MUTATORS = ['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin'];
/** The set (and map) methods that change it in place. */
export const SET_MUTATORS = ['add', 'delete', 'clear', 'set'];

/** One write: the file (tree-relative, `/` separators) and its line. */
export interface StateWrite {
  readonly file: string;
  readonly line: number;
}

const ASSIGNMENTS = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.MinusEqualsToken,
  ts.SyntaxKind.AsteriskEqualsToken,
  ts.SyntaxKind.SlashEqualsToken,
  ts.SyntaxKind.PercentEqualsToken,
  ts.SyntaxKind.AsteriskAsteriskEqualsToken,
  ts.SyntaxKind.LessThanLessThanEqualsToken,
  ts.SyntaxKind.GreaterThanGreaterThanEqualsToken,
  ts.SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken,
  ts.SyntaxKind.AmpersandEqualsToken,
  ts.SyntaxKind.BarEqualsToken,
  ts.SyntaxKind.CaretEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

/** Wrappers that leave the value as it is: a cast must not hide a write. */
const isWrapper = (node: ts.Node): boolean =>
  ts.isParenthesizedExpression(node) ||
  ts.isNonNullExpression(node) ||
  ts.isAsExpression(node) ||
  ts.isSatisfiesExpression(node) ||
  ts.isTypeAssertionExpression(node);

/** `node` with the wrappers around it: the expression its parent sees. */
function outermost(node: ts.Node): ts.Node {
  let outer = node;
  while (outer.parent !== undefined && isWrapper(outer.parent)) outer = outer.parent;
  return outer;
}

/** Whether `node` is the target of an assignment, an increment or a `delete`. */
function isWrittenTo(node: ts.Node): boolean {
  const child = outermost(node);
  const parent = child.parent;
  if (parent === undefined) return false;
  if (ts.isBinaryExpression(parent)) return parent.left === child && ASSIGNMENTS.has(parent.operatorToken.kind);
  if (ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent))
    return parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken;
  return ts.isDeleteExpression(parent);
}

/** Whether the piece at `node` is changed through a member or by a mutating call. */
function changesInside(node: ts.Expression, shape: WriteShape): boolean {
  const outer = outermost(node);
  const parent = outer.parent;
  const member =
    (ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) && parent.expression === outer
      ? parent
      : undefined;
  if (member === undefined) return false;
  if (shape.members === true && isWrittenTo(member)) return true;
  if (!ts.isPropertyAccessExpression(member) || !(shape.mutators ?? []).includes(member.name.text)) return false;
  const callee = outermost(member);
  return ts.isCallExpression(callee.parent) && callee.parent.expression === callee;
}

/**
 * The class `this` means at `node`: the nearest class around it, seen through arrow functions
 * (they keep the `this` they are made in); undefined inside a plain function, whose `this` is
 * whatever it is called on.
 */
function classOfThis(node: ts.Node): ts.ClassLikeDeclaration | undefined {
  for (let at = node.parent; at !== undefined; at = at.parent) {
    if (ts.isFunctionDeclaration(at) || ts.isFunctionExpression(at)) return undefined;
    if (ts.isClassLike(at)) return at;
  }
  return undefined;
}

/** Whether `node` (`this.<name>`) is a field of a class other than the piece's holder. */
function isOtherClassField(node: ts.PropertyAccessExpression, holder: string | undefined): boolean {
  if (holder === undefined || node.expression.kind !== ts.SyntaxKind.ThisKeyword) return false;
  const owner = classOfThis(node);
  return owner !== undefined && owner.name?.text !== holder;
}

/**
 * The locals a file takes the piece into by destructuring (`const { marks } = memory`,
 * `{ marks: list }`): changing one of them in place changes the piece.
 */
function destructuredAliases(source: ts.SourceFile, name: string): Set<string> {
  const aliases = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent) && ts.isIdentifier(node.name)) {
      const property = node.propertyName ?? node.name;
      if (ts.isIdentifier(property) && property.text === name) aliases.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return aliases;
}

/** Every write of the property `name` (or its private field `#name`) in `text`, by line. */
export function writesIn(file: string, text: string, name: string, shape: WriteShape): StateWrite[] {
  return writesInSource(file, parse(file, text), name, shape);
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

function writesInSource(file: string, source: ts.SourceFile, name: string, shape: WriteShape): StateWrite[] {
  const aliases = destructuredAliases(source, name);
  const found: StateWrite[] = [];
  const visit = (node: ts.Node): void => {
    const isPiece =
      ts.isPropertyAccessExpression(node) &&
      node.name.text.replace(/^#/, '') === name &&
      !isOtherClassField(node, shape.holder);
    // A local alias may be rebound freely; only changing what it holds changes the piece.
    const isAlias =
      ts.isIdentifier(node) &&
      aliases.has(node.text) &&
      !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node);
    if ((isPiece && (isWrittenTo(node) || changesInside(node, shape))) || (isAlias && changesInside(node, shape))) {
      found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Each file is parsed once per test run, however many pieces are looked for in it. */
const parsed = new Map<string, ts.SourceFile>();

function parsedAt(path: string, file: string): ts.SourceFile {
  let source = parsed.get(path);
  if (source === undefined) {
    source = parse(file, readFileSync(path, 'utf8'));
    parsed.set(path, source);
  }
  return source;
}

/** The files under the `folders` of `root` that write the piece `name`, sorted, each once. */
export function filesWriting(root: string, folders: readonly string[], name: string, shape: WriteShape): string[] {
  const files = new Set<string>();
  for (const path of folders.flatMap((folder) => sourceFiles(join(root, folder)))) {
    const file = relative(root, path).split(sep).join('/');
    for (const write of writesInSource(file, parsedAt(path, file), name, shape)) files.add(write.file);
  }
  return [...files].sort();
}
