/**
 * No private door: a guard family builds on what anyone writing one can import. Every name a
 * family imports from outside the families' folders, and every interface it augments there, must
 * be one a public entry point of `@agate/core` exports (the same declaration, not a namesake).
 * Checked with the TypeScript compiler's own symbol resolution, so a re-export or an alias
 * cannot hide an import.
 */
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The entry points anyone may import (`@agate/core`, `/guards`, `/stores`); not `/internal`,
 * which is for the other @agate packages and carries no promise.
 */
const PUBLIC_ENTRIES = ['index.ts', 'entries/guards.ts', 'entries/stores.ts'];
/**
 * Where the families live: the built-in ones (sub-agents included), the one `defineGuard` guards
 * run in, the approvals they share (signing, the decision ledger: beside the families, held to
 * the same seam), the check readers they share (checks/: the shell classifier and a check's
 * outcome, used by <PhaseGates> and <CommandGate>), and the file that declares what they add to
 * the session's types.
 */
const FAMILY_ROOTS = ['families/', 'approvals/', 'checks/', 'guard-seam/built-in-family-types.ts'];
const isFamilyFile = (file: string) => {
  const at = relative(SRC, file);
  return (
    FAMILY_ROOTS.some((root) => at.startsWith(root)) &&
    !/\.test(-d)?\.tsx?$|__fixtures__/.test(at) &&
    !at.endsWith('.d.ts')
  );
};

const leaks: string[] = [];
let checkedImports = 0;

beforeAll(() => {
  const configPath = resolve(SRC, '../../../tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error(`cannot read ${configPath}`);
  // The sources only: the tests' files (and what they import: vitest, @agate/testing) are
  // neither families nor entry points, and parsing them was most of this check's time.
  const files = config.fileNames.filter(
    (f) => f.startsWith(SRC) && !/\.test(-d)?\.tsx?$|__fixtures__/.test(f),
  );
  const program = ts.createProgram(files, config.options);
  const checker = program.getTypeChecker();
  const resolveAlias = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;

  const publicDeclarations = new Set<ts.Symbol>();
  for (const entry of PUBLIC_ENTRIES) {
    const file = program.getSourceFile(resolve(SRC, entry));
    const symbol = file && checker.getSymbolAtLocation(file);
    if (symbol === undefined) throw new Error(`no ${entry}`);
    for (const exported of checker.getExportsOfModule(symbol)) {
      publicDeclarations.add(resolveAlias(exported));
    }
  }

  const outside = (from: ts.SourceFile, specifier: string) => {
    if (!specifier.startsWith('.')) return undefined;
    const target = resolve(dirname(from.fileName), specifier).replace(/\.js$/, '');
    return isFamilyFile(`${target}.ts`) || isFamilyFile(`${target}.tsx`)
      ? undefined
      : relative(SRC, target);
  };

  for (const file of program.getSourceFiles()) {
    if (!isFamilyFile(file.fileName)) continue;
    const at = relative(SRC, file.fileName);
    for (const statement of file.statements) {
      // import { a, type B } from '../runtime/x.js'  /  export { a } from '../runtime/x.js'
      const specifier =
        (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
        statement.moduleSpecifier !== undefined &&
        ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : undefined;
      if (specifier !== undefined) {
        const module = outside(file, specifier);
        if (module === undefined) continue;
        const names: ts.Identifier[] = [];
        if (ts.isImportDeclaration(statement)) {
          const clause = statement.importClause;
          if (clause?.name) names.push(clause.name);
          const bindings = clause?.namedBindings;
          if (bindings && ts.isNamedImports(bindings)) {
            for (const element of bindings.elements) names.push(element.name);
          } else if (bindings) {
            leaks.push(`${at}: imports all of ${module} (import the names it needs)`);
          }
        } else if (
          ts.isExportDeclaration(statement) &&
          statement.exportClause &&
          ts.isNamedExports(statement.exportClause)
        ) {
          for (const element of statement.exportClause.elements) {
            if (ts.isIdentifier(element.name)) names.push(element.name);
          }
        }
        for (const name of names) {
          checkedImports += 1;
          const symbol = checker.getSymbolAtLocation(name);
          if (symbol === undefined || !publicDeclarations.has(resolveAlias(symbol))) {
            leaks.push(`${at}: ${name.text} from ${module}`);
          }
        }
        continue;
      }
      // declare module '../state/session-state.js' { interface GuardStates { ... } }
      if (
        ts.isModuleDeclaration(statement) &&
        ts.isStringLiteral(statement.name) &&
        statement.body !== undefined &&
        ts.isModuleBlock(statement.body)
      ) {
        const module = outside(file, statement.name.text);
        if (module === undefined) continue;
        for (const declaration of statement.body.statements) {
          if (!ts.isInterfaceDeclaration(declaration)) continue;
          checkedImports += 1;
          const symbol = checker.getSymbolAtLocation(declaration.name);
          if (symbol === undefined || !publicDeclarations.has(resolveAlias(symbol))) {
            leaks.push(`${at}: augments ${declaration.name.text} of ${module}`);
          }
        }
      }
    }
  }
}, 120_000);

describe('guard families', () => {
  it('were found and their imports read', () => {
    expect(checkedImports).toBeGreaterThan(100);
  });

  it('import from the runtime only what @agate/core and its public subpaths export', () => {
    expect(leaks).toEqual([]);
  });
});
