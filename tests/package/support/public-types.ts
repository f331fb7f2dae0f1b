import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The named types a user can reach from the package's public entries (through parameters,
 * return types, properties and type arguments) that no public entry exports. Entries marked
 * internal and `pi-fold/testing` count as public only for their own exports, not as a
 * place to name a public type from (internal ones not at all). `diTypes` lists the reachable
 * types declared by tsyringe: the composition root keeps its container to itself, so a user
 * never meets one.
 */
export function unexportedReachableTypes(root: string): {
  readonly missing: string[];
  readonly diTypes: string[];
  readonly checkedEntries: string[];
} {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import: string }>;
  };
  const entries = Object.entries(manifest.exports)
    .filter(
      ([subpath, target]) => typeof target === 'object' && !subpath.endsWith('/internal') && subpath !== './internal',
    )
    .map(([, target]) =>
      join(root, (target as { import: string }).import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
    );
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  const program = ts.createProgram(entries, { ...config!.options, noEmit: true });
  const checker = program.getTypeChecker();
  const inProject = (declaration: ts.Declaration) => {
    const file = resolve(declaration.getSourceFile().fileName);
    return file.startsWith(root) && !file.includes('/node_modules/');
  };

  // Every declaration a public entry names (an alias to a named interface names that interface too).
  const named = new Set<ts.Declaration>();
  const roots: ts.Symbol[] = [];
  for (const entry of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!);
    for (const exported of module === undefined ? [] : checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      roots.push(symbol);
      for (const declaration of symbol.declarations ?? []) {
        named.add(declaration);
        if (ts.isTypeAliasDeclaration(declaration))
          for (const target of checker.getTypeAtLocation(declaration).getSymbol()?.declarations ?? [])
            named.add(target);
      }
    }
  }

  const missing = new Map<string, string>();
  const diTypes = new Map<string, string>();
  const seen = new Set<ts.Type>();
  let via = '';
  const requireNamed = (symbol: ts.Symbol | undefined) => {
    const declaration = symbol?.declarations?.find(
      (candidate) =>
        ts.isInterfaceDeclaration(candidate) ||
        ts.isClassDeclaration(candidate) ||
        ts.isTypeAliasDeclaration(candidate) ||
        ts.isEnumDeclaration(candidate),
    );
    if (declaration !== undefined && /[\\/]node_modules[\\/]tsyringe[\\/]/.test(declaration.getSourceFile().fileName)) {
      const name = symbol!.getName();
      if (!diTypes.has(name)) diTypes.set(name, via);
    }
    if (declaration === undefined || !inProject(declaration) || named.has(declaration)) return;
    const name = `${symbol!.getName()} (${relative(root, declaration.getSourceFile().fileName)})`;
    if (!missing.has(name)) missing.set(name, via);
  };
  // A union alias inside a wider union (`CommitReason | undefined`) leaves no alias on the type,
  // so the names written in a member's or parameter's annotation are checked as well.
  const requireWrittenNames = (declaration: ts.Declaration) => {
    const annotation = (declaration as { type?: ts.TypeNode }).type;
    const visit = (node: ts.Node): void => {
      if (ts.isTypeReferenceNode(node)) {
        const symbol = checker.getSymbolAtLocation(node.typeName);
        requireNamed(
          symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
        );
      }
      ts.forEachChild(node, visit);
    };
    if (annotation !== undefined && inProject(declaration)) visit(annotation);
  };
  const visitType = (type: ts.Type): void => {
    if (seen.has(type)) return;
    seen.add(type);
    requireNamed(type.aliasSymbol);
    if (type.aliasSymbol === undefined) requireNamed(type.getSymbol());
    // Arguments of a project alias are reachable; those of a library one (Pick, Omit) only
    // through the members it keeps, which the walk below visits.
    if (type.aliasSymbol?.declarations?.some(inProject))
      for (const argument of type.aliasTypeArguments ?? []) visitType(argument);
    if (type.isUnionOrIntersection()) for (const part of type.types) visitType(part);
    if (type.flags & ts.TypeFlags.Object) {
      const declarations = type.getSymbol()?.declarations ?? type.aliasSymbol?.declarations ?? [];
      // Types from other packages (ai, Pi) are theirs to export; do not walk into them.
      if (declarations.length > 0 && !declarations.some(inProject)) return;
      if ((type as ts.TypeReference).target !== undefined)
        for (const argument of checker.getTypeArguments(type as ts.TypeReference)) visitType(argument);
      for (const property of checker.getPropertiesOfType(type)) {
        if (isHidden(property)) continue;
        const location = property.valueDeclaration ?? property.declarations?.[0];
        if (location === undefined) continue;
        const outer = via;
        via = `${outer}.${property.getName()}`;
        requireWrittenNames(location);
        visitType(checker.getTypeOfSymbolAtLocation(property, location));
        via = outer;
      }
      for (const signature of [...type.getCallSignatures(), ...type.getConstructSignatures()]) {
        // A private constructor (FoldRuntime's: hosts call `open`) is no door.
        if (signature.declaration !== undefined && isHiddenDeclaration(signature.declaration)) continue;
        visitSignature(signature);
      }
      for (const info of checker.getIndexInfosOfType(type)) visitType(info.type);
    }
  };
  const visitSignature = (signature: ts.Signature) => {
    if (signature.declaration !== undefined) requireWrittenNames(signature.declaration);
    for (const parameter of signature.getParameters())
      for (const declaration of parameter.declarations ?? []) requireWrittenNames(declaration);
    for (const parameter of signature.getParameters())
      visitType(
        checker.getTypeOfSymbolAtLocation(parameter, parameter.valueDeclaration ?? parameter.declarations![0]!),
      );
    visitType(signature.getReturnType());
  };
  for (const symbol of roots) {
    via = symbol.getName();
    const location = symbol.valueDeclaration ?? symbol.declarations?.[0];
    if (location === undefined) continue;
    if (symbol.flags & (ts.SymbolFlags.Value | ts.SymbolFlags.Class))
      visitType(checker.getTypeOfSymbolAtLocation(symbol, location));
    if (symbol.flags & ts.SymbolFlags.Type) visitType(checker.getDeclaredTypeOfSymbol(symbol));
  }
  return {
    missing: [...missing].map(([name, path]) => `${name} via ${path}`).sort(),
    diTypes: [...diTypes].map(([name, path]) => `${name} via ${path}`).sort(),
    checkedEntries: entries.map((entry) => relative(root, entry)),
  };
}

function isHidden(property: ts.Symbol): boolean {
  if (property.getName().startsWith('#')) return true;
  return (property.declarations ?? []).some(isHiddenDeclaration);
}

function isHiddenDeclaration(declaration: ts.Declaration): boolean {
  return (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
}
