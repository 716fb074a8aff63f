/**
 * The floors of packages/core/src, checked by dependency-cruiser (not a hand-written scanner),
 * one rule per floor: no import circle (type imports included: a circle of types is still a
 * circle of knowledge), and each floor imports only from the floors drawn below it in
 * docs/architecture.md. The one exception (the seam's lists of the built-in families, which is
 * where families are named) is named here, with why, and drawn there too.
 */
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SRC = 'packages/core/src';

let result: ICruiseResult;

/** A path under src/ in one of `folders` (a folder, or a folder path such as `families/[^/]+`). */
const inAny = (folders: readonly string[]) => `^${SRC}/(${folders.join('|')})/`;

/** Everything the families may import: every floor below them, not another family. */
const BELOW_FAMILIES = [
  'ground',
  'state',
  'components',
  'renderer',
  'runtime',
  'guard-seam',
  'approvals',
  'context-budget',
  'persistence',
  'tick-log',
  'telemetry',
  'mcp',
  'shell',
  'workspace',
  'checks',
];

/**
 * One rule per floor: `from` a floor, to any file of src/ outside what it may import. The
 * floor's own folder is always allowed (the no-circular rule keeps a folder itself in order).
 */
interface Floor {
  name: string;
  from: string;
  fromNot?: string;
  mayImport: readonly string[];
}

const FLOORS: readonly Floor[] = [
  { name: 'ground-imports-nothing', from: inAny(['ground']), mayImport: ['ground'] },
  { name: 'state-imports-only-ground', from: inAny(['state']), mayImport: ['state', 'ground'] },
  {
    name: 'components-import-only-state-and-ground',
    from: inAny(['components']),
    mayImport: ['components', 'state', 'ground'],
  },
  {
    name: 'renderer-imports-only-components-state-and-ground',
    from: inAny(['renderer']),
    mayImport: ['renderer', 'components', 'state', 'ground'],
  },
  {
    name: 'runtime-and-seam-know-no-family',
    from: inAny(['runtime', 'guard-seam']),
    // The seam's four lists of the built-in families are where the families are named.
    fromNot: `^${SRC}/guard-seam/built-in-(families|slices|family-api|family-types)\\.ts$`,
    mayImport: BELOW_FAMILIES,
  },
  {
    name: 'services-know-no-family',
    from: inAny([
      'context-budget',
      'persistence',
      'tick-log',
      'telemetry',
      'mcp',
      'shell',
      'workspace',
      'checks',
    ]),
    mayImport: BELOW_FAMILIES,
  },
  {
    name: 'web-knows-no-family',
    from: inAny(['web']),
    mayImport: [...BELOW_FAMILIES, 'web'],
  },
  {
    name: 'approvals-know-no-family',
    from: inAny(['approvals']),
    mayImport: BELOW_FAMILIES,
  },
];

const FAMILIES = [
  'checkpoints',
  'command-gate',
  'continue-gate',
  'defined-guards',
  'evidence',
  'gates-and-knobs',
  'output',
  'phase-gates',
  'sub-agents',
  'tool-approvals',
];

const FLOOR_RULES = [
  ...FLOORS.map((floor) => ({
    name: floor.name,
    severity: 'error' as const,
    from: { path: floor.from, ...(floor.fromNot ? { pathNot: floor.fromNot } : {}) },
    to: {
      path: `^${SRC}/`,
      pathNot: inAny(floor.mayImport),
    },
  })),
  // The same floors with nothing allowed but their own folder, reported as info: every floor
  // that imports anything must show up here, which proves its paths match real files.
  ...FLOORS.map((floor) => ({
    name: `${floor.name}:probe`,
    severity: 'info' as const,
    from: { path: floor.from },
    to: { path: `^${SRC}/`, pathNot: inAny([floor.mayImport[0] ?? '']) },
  })),
  // A family imports the floors below it, never another family: what two families share
  // (the approval ledger, the declaration hook) lives on a floor below them.
  ...FAMILIES.map((family) => ({
    name: `family-${family}-imports-no-other-family`,
    severity: 'error' as const,
    from: { path: inAny([`families/${family}`]) },
    to: {
      path: inAny(['families']),
      pathNot: [inAny([`families/${family}`])],
    },
  })),
];

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
          ...FLOOR_RULES,
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

  it.each(FLOORS.map((floor) => floor.name))('keeps its floor: %s', (rule) => {
    const leaks = result.summary.violations.filter((v) => v.rule.name === rule);
    expect(leaks.map(describeViolation)).toEqual([]);
  });

  it.each(FLOORS.filter((floor) => floor.name !== 'ground-imports-nothing').map((f) => f.name))(
    'has rule paths that match real imports: %s',
    (rule) => {
      const seen = result.summary.violations.filter((v) => v.rule.name === `${rule}:probe`);
      expect(seen.length).toBeGreaterThan(0);
    },
  );

  it.each(FAMILIES)('has a family that imports no other family: %s', (family) => {
    const leaks = result.summary.violations.filter(
      (v) => v.rule.name === `family-${family}-imports-no-other-family`,
    );
    expect(leaks.map(describeViolation)).toEqual([]);
  });

  it('names every family folder in the rules', async () => {
    const { readdir } = await import('node:fs/promises');
    const folders = await readdir(new URL('./families/', import.meta.url));
    expect(folders.filter((f) => !f.includes('.')).sort()).toEqual([...FAMILIES].sort());
  });
});
