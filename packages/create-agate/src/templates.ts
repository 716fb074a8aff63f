import {
  modelTest,
  modelTs,
  PROVIDER_ENV_EXAMPLE,
  realModelReadme,
  runTsx,
} from './model-template.js';

/**
 * The files of a new Agate project. Plain functions of the project's name and the Agate
 * version, so `create-agate`, `agate init` and the test that installs the result share them.
 */

/** The Agate packages a new project depends on. */
export const AGATE_PACKAGES = ['@agate/core', '@agate/cli', '@agate/testing'] as const;
/** Those, and the ones a template adds (the durable project's @agate/dbos and its store). */
export type AgatePackage = (typeof AGATE_PACKAGES)[number] | '@agate/dbos' | '@agate/postgres';

/**
 * The templates `create-agate --template <name>` knows. `default` is the calculator with a
 * gate; `coding` a bash agent in a sandbox that may finish only when the host ran the tests;
 * `chat` a support agent behind a `useChat` page whose refunds wait for the person's approval;
 * `durable` an agent run by workers on PostgreSQL (@agate/dbos).
 */
export const TEMPLATE_NAMES = ['default', 'coding', 'chat', 'durable'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

export function isTemplateName(name: string): name is TemplateName {
  return (TEMPLATE_NAMES as readonly string[]).includes(name);
}

export interface TemplateOptions {
  /** The package name (package.json `name`). */
  name: string;
  /** The version range of the `@agate/*` packages to depend on, e.g. `^0.1.0`. */
  agateVersion: string;
  /**
   * Packed tarballs to install instead of the registry's packages (`create-agate --from DIR`):
   * paths relative to the project (`../agate/packed/agate-core-0.1.0.tgz`), written as `file:`
   * dependencies, so the project can move with the clone.
   */
  tarballs?: Partial<Record<AgatePackage, string>>;
  /** Which project (`TEMPLATE_NAMES`); default `default`. */
  template?: TemplateName;
}

/** The npm scripts of a template's package.json. */
export interface ProjectScripts {
  test: string;
  typecheck: string;
  start: string;
  demo: string;
  /** The agent in a program of its own (run.tsx) on model.ts's routes. */
  'start:sdk'?: string;
}

const DEFAULT_SCRIPTS: ProjectScripts = {
  test: 'vitest run',
  typecheck: 'tsc --noEmit',
  start: 'agate run agent.tsx',
  'start:sdk': 'tsx run.tsx',
  demo: 'agate run agent.tsx --scripted script.json',
};

/** What a template adds to the dependencies every project has. */
export interface ExtraDependencies {
  dependencies?: Readonly<Record<string, string>>;
  devDependencies?: Readonly<Record<string, string>>;
}

/**
 * Versions of the third-party packages a new project uses (those Agate is built against). A
 * new project holds what runs an agent (Agate, `ai`, `react`, `zod`) and, for development, its
 * test runner and TypeScript 5 with the `@types` it needs for `npm run typecheck`.
 * `typescript@5`, not a range that lets npm pick 7.x: the native 7.x ships no JavaScript API in
 * `lib/`, which tools that load TypeScript (vitest's type tests, API Extractor) need.
 *
 * `ai` is exact, as in @agate/cli: `@ai-sdk/mcp` (under @agate/core) pins `@ai-sdk/provider`
 * and `-utils` exactly, and a newer `ai` pins newer ones, so a range would install two copies.
 */
export const THIRD_PARTY = {
  ai: '7.0.173',
  // Exact for the same reason: each pins @ai-sdk/provider(-utils) exactly, as `ai` 7.0.173
  // does (the CLI's own @ai-sdk/openai-compatible is this version).
  '@ai-sdk/openai': '4.0.118',
  '@ai-sdk/openai-compatible': '3.0.92',
  '@ai-sdk/react': '4.0.177',
  // The CLI's own ranges: already in every install (tsx loads agent files for `agate run`).
  tsx: '^4.23.15',
  esbuild: '~0.28.0',
  'react-dom': '^19.3.1',
  '@types/react-dom': '^19.3.0',
  react: '^19.3.1',
  zod: '^4.6.7',
  vitest: '^5.1.1',
  typescript: '^5.9.3',
  '@types/react': '^19.3.0',
  '@types/node': '^24.0.0',
} as const;

export function packageJson(
  { name, agateVersion, tarballs = {} }: TemplateOptions,
  scripts: ProjectScripts = DEFAULT_SCRIPTS,
  extra: ExtraDependencies = {},
): string {
  const agate = (pkg: AgatePackage) => {
    const tarball = tarballs[pkg];
    return tarball === undefined ? agateVersion : `file:${tarball}`;
  };
  const pkg = {
    name,
    version: '0.1.0',
    private: true,
    // ESM: agent files use top-level await and `import`, which CommonJS projects cannot.
    type: 'module',
    scripts,
    dependencies: sorted({
      '@agate/cli': agate('@agate/cli'),
      '@agate/core': agate('@agate/core'),
      // model.ts's two real routes.
      '@ai-sdk/openai': THIRD_PARTY['@ai-sdk/openai'],
      '@ai-sdk/openai-compatible': THIRD_PARTY['@ai-sdk/openai-compatible'],
      ai: THIRD_PARTY.ai,
      react: THIRD_PARTY.react,
      // Runs the project's own programs (run.tsx, a server): TypeScript with JSX.
      tsx: THIRD_PARTY.tsx,
      zod: THIRD_PARTY.zod,
      ...extra.dependencies,
    }),
    devDependencies: sorted({
      '@agate/testing': agate('@agate/testing'),
      '@types/node': THIRD_PARTY['@types/node'],
      '@types/react': THIRD_PARTY['@types/react'],
      typescript: THIRD_PARTY.typescript,
      vitest: THIRD_PARTY.vitest,
      ...extra.devDependencies,
    }),
    // npm 11 blocks install scripts nobody approved, and warns about each. esbuild's (tsx's
    // compiler) only re-checks the binary its platform package brought, or downloads one:
    // denied, said so, and the install is quiet. Older npm ignores the field.
    allowScripts: { esbuild: false },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** npm keeps dependencies sorted by name; a template's extras join in order. */
function sorted(deps: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(deps).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export function tsconfigJson(): string {
  const config = {
    compilerOptions: {
      target: 'ES2023',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      // JSX through React's automatic runtime (no `import React` in agent files), with Agate's
      // JSX namespace: a DOM tag such as <div> in an agent tree is a type error.
      jsx: 'react-jsx',
      jsxImportSource: '@agate/core',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
    include: ['**/*.ts', '**/*.tsx'],
    exclude: ['node_modules'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export function agentTsx(): string {
  return `import { gate, System, Timeline, Tool, User, useGate } from '@agate/core';
import { z } from 'zod';

/**
 * The agent must check its answer before it may finish. The gate engages when the agent
 * writes an answer and clears only when the host sees a check that passed (a tool result),
 * never on the model's say-so.
 */
const checked = gate({
  description: 'Check the answer before finishing',
  instructions: 'ANSWER NOT CHECKED: call check_answer with the answer you wrote.',
  activateWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'write_answer'),
  clearWhen: (tick) =>
    tick.toolResults.some((r) => r.toolName === 'check_answer' && r.output === 'correct'),
});

export default function Calculator() {
  const g = useGate('checked', checked);
  return (
    <>
      <System>You are a careful calculator. Write your answer, check it, then reply.</System>
      <User>What is 17 * 23?</User>
      <Timeline />
      <Tool
        name="write_answer"
        description="Write down your answer."
        input={z.object({ answer: z.string() })}
        execute={({ answer }) => \`wrote \${answer}\`}
      />
      <Tool
        name="check_answer"
        description="Check an answer."
        input={z.object({ answer: z.string() })}
        execute={({ answer }) => (answer.trim() === String(17 * 23) ? 'correct' : 'wrong')}
      />
      {g.element}
    </>
  );
}
`;
}

export function agentTest(): string {
  return `import { createSession } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import Calculator from './agent.js';

describe('the calculator agent', () => {
  it('completes once its answer was checked', async () => {
    const session = createSession(<Calculator />, {
      model: scriptedModel([
        { toolCalls: [{ toolName: 'write_answer', input: { answer: '391' } }] },
        { toolCalls: [{ toolName: 'check_answer', input: { answer: '391' } }] },
        '17 * 23 = 391.',
      ]),
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
  });

  it('may not finish before checking: the gate refuses, and the run ends blocked', async () => {
    const session = createSession(<Calculator />, {
      model: scriptedModel(
        [{ toolCalls: [{ toolName: 'write_answer', input: { answer: '391' } }] }, 'Done: 391.'],
        { whenExhausted: 'repeat-last' },
      ),
      maxTicks: 10,
    });
    const result = await session.run();
    expect(result.status).not.toBe('completed');
  });
});
`;
}

/** A script for \`agate run agent.tsx --scripted script.json\`: offline, no API key. */
export function scriptJson(): string {
  const turns = [
    { toolCalls: [{ toolName: 'write_answer', input: { answer: '391' } }] },
    'I am done: 391.',
    { toolCalls: [{ toolName: 'check_answer', input: { answer: '391' } }] },
    '17 * 23 = 391, checked.',
  ];
  return `${JSON.stringify(turns, null, 2)}\n`;
}

export function readme({ name, tarballs = {} }: TemplateOptions): string {
  const packed = Object.keys(tarballs).length > 0;
  return `# ${name}

An [Agate](https://www.npmjs.com/package/@agate/core) agent: \`agent.tsx\` is a calculator that
must check its answer before it may finish (a gate the host clears from the check's result).

\`\`\`sh
npm install
npm test                                        # the scripted-model tests in agent.test.tsx
npx agate run agent.tsx --scripted script.json  # a run offline, on the turns in script.json
\`\`\`

In the scripted run the model tries to finish before checking: the gate refuses and says why,
the model checks, and the run completes.

${realModelReadme()}
## What the project needs

- \`package.json\` has \`"type": "module"\`: agent files are ES modules.
- \`@agate/core\`, \`@agate/cli\`, \`react\`, \`zod\`, \`ai\`, the two providers and \`tsx\`
  are dependencies; \`@agate/testing\`
  (scripted models, also used by \`--scripted\`) and \`vitest\` are dev dependencies.${
    packed
      ? `
  The \`@agate/*\` packages are installed from the tarballs \`create-agate --from\` was given
  (\`file:\` paths in \`package.json\`); once Agate is on the npm registry, replace them with
  version ranges.`
      : ''
  }
- \`tsconfig.json\` sets \`"jsx": "react-jsx"\` (React's automatic runtime) with
  \`"jsxImportSource": "@agate/core"\`: Agate's JSX namespace, so a DOM tag such as \`<div>\` in
  an agent tree is a type error. \`agate run\` compiles agent files with React's runtime
  whatever it says. \`npm run typecheck\` runs \`tsc --noEmit\` (TypeScript 5, a dev dependency).
`;
}

/** The README paragraph of a project whose `@agate/*` packages come from `--from` tarballs. */
export function packedNote(packed: boolean): string {
  return packed
    ? `
The \`@agate/*\` packages are installed from the tarballs \`create-agate --from\` was given
(\`file:\` paths in \`package.json\`); once Agate is on the npm registry, replace them with
version ranges.
`
    : '';
}

export function gitignore(): string {
  return 'node_modules\n.agate\n.env\n';
}

/** The variables that name a real model (`agate run` and model.ts); copied to `.env`. */
export function envExample(): string {
  return PROVIDER_ENV_EXAMPLE;
}

/** Every file of a new `default` project (the calculator), by path relative to its directory. */
export function defaultProjectFiles(options: TemplateOptions): Record<string, string> {
  return {
    'package.json': packageJson(options),
    'tsconfig.json': tsconfigJson(),
    'agent.tsx': agentTsx(),
    'agent.test.tsx': agentTest(),
    'script.json': scriptJson(),
    'model.ts': modelTs(),
    'model.test.tsx': modelTest(),
    'run.tsx': runTsx(),
    'README.md': readme(options),
    '.gitignore': gitignore(),
    '.env.example': envExample(),
  };
}
