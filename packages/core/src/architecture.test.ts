/**
 * The layering of packages/core/src, checked by dependency-cruiser (not a hand-written scanner):
 * no import circle (type imports included: a circle of types is still a circle of knowledge),
 * and the floors below the families (state, components, renderer, runtime, persistence, the
 * guard seam itself, and the services and components beside them: context-budget, tick-log,
 * telemetry, mcp, shell, workspace) import nothing from the guard families in families/. The
 * seam's four lists of the built-in families (guard-seam/built-in-families.ts,
 * built-in-slices.ts, built-in-family-api.ts, built-in-family-types.ts) are where they are named.
 */
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SRC = 'packages/core/src';

let result: ICruiseResult;

const describeViolation = (v: IViolation) =>
  v.cycle && v.cycle.length > 0
    ? [v.from, ...v.cycle.map((step) => (typeof step === 'string' ? step : step.name))].join(' → ')
    : `${v.from} → ${v.to}`;

beforeAll(async () => {
  const previous = process.cwd();
  process.chdir(ROOT);
  try {
    const cruised = await cruise([SRC], {
      validate: true,
      ruleSet: {
        forbidden: [
          {
            name: 'no-circular',
            severity: 'error',
            from: { path: `^${SRC}` },
            to: { circular: true },
          },
          {
            name: 'lower-floors-know-no-family',
            severity: 'error',
            from: {
              path: `^${SRC}/(state|components|renderer|runtime|persistence|guard-seam|context-budget|tick-log|telemetry|mcp|shell|workspace)/`,
              pathNot: `^${SRC}/guard-seam/built-in-(families|slices|family-api|family-types)\\.ts$`,
            },
            to: { path: `^${SRC}/families/` },
          },
        ],
      },
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: '(\\.test(-d)?\\.tsx?$|/__fixtures__/|node_modules)' },
      tsConfig: { fileName: 'tsconfig.json' },
    });
    result = cruised.output as ICruiseResult;
  } finally {
    process.chdir(previous);
  }
}, 120_000);

describe('packages/core/src', () => {
  it('was cruised whole', () => {
    expect(result.summary.totalCruised).toBeGreaterThan(150);
    expect(result.modules.some((m) => m.source === `${SRC}/runtime/session.ts`)).toBe(true);
  });

  it('has no import circle', () => {
    const circles = result.summary.violations.filter((v) => v.rule.name === 'no-circular');
    expect(circles.map(describeViolation)).toEqual([]);
  });

  it('has floors below the families (state, components, renderer, runtime, persistence, the guard seam, and the services beside them) that import nothing from families/', () => {
    const leaks = result.summary.violations.filter(
      (v) => v.rule.name === 'lower-floors-know-no-family',
    );
    expect(leaks.map(describeViolation)).toEqual([]);
  });
});
