/**
 * The files of a new Agate project. Plain functions of the project's name and the Agate
 * version, so `create-agate`, `agate init` and the test that installs the result share them.
 */

/** The Agate packages a new project depends on. */
export const AGATE_PACKAGES = ['@agate/core', '@agate/cli', '@agate/testing'] as const;
export type AgatePackage = (typeof AGATE_PACKAGES)[number];

export interface TemplateOptions {
  /** The package name (package.json `name`). */
  name: string;
  /** The version range of the `@agate/*` packages to depend on, e.g. `^0.1.0`. */
  agateVersion: string;
  /**
   * Packed tarballs to install instead of the registry's packages (`create-agate --from DIR`):
   * absolute paths, written as `file:` dependencies.
   */
  tarballs?: Partial<Record<AgatePackage, string>>;
}

/**
 * Versions of the third-party packages a new project uses (those Agate is built against). A
 * new project holds what runs an agent (Agate, `ai`, `react`, `zod`) and its test runner,
 * nothing else: TypeScript and the `@types` packages are the editor's business (the README
 * says what to add for `tsc`).
 *
 * `ai` is exact, as in @agate/cli: `@ai-sdk/mcp` (under @agate/core) pins `@ai-sdk/provider`
 * and `-utils` exactly, and a newer `ai` pins newer ones, so a range would install two copies.
 */
export const THIRD_PARTY = {
  ai: '7.0.173',
  react: '^19.3.1',
  zod: '^4.6.7',
  vitest: '^5.1.1',
} as const;

export function packageJson({ name, agateVersion, tarballs = {} }: TemplateOptions): string {
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
    scripts: {
      test: 'vitest run',
      start: 'agate run agent.tsx',
      demo: 'agate run agent.tsx --scripted script.json',
    },
    dependencies: {
      '@agate/cli': agate('@agate/cli'),
      '@agate/core': agate('@agate/core'),
      ai: THIRD_PARTY.ai,
      react: THIRD_PARTY.react,
      zod: THIRD_PARTY.zod,
    },
    devDependencies: {
      '@agate/testing': agate('@agate/testing'),
      vitest: THIRD_PARTY.vitest,
    },
    // npm 11 blocks install scripts nobody approved, and warns about each. esbuild's (tsx's
    // compiler) only re-checks the binary its platform package brought, or downloads one:
    // denied, said so, and the install is quiet. Older npm ignores the field.
    allowScripts: { esbuild: false },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

export function tsconfigJson(): string {
  const config = {
    compilerOptions: {
      target: 'ES2023',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      // JSX through React's automatic runtime: no `import React` in agent files.
      jsx: 'react-jsx',
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

To run it on a real model, set \`OPENAI_API_KEY\` (or \`AGATE_BASE_URL\` and \`AGATE_MODEL\` for an
OpenAI-compatible server such as Ollama) and run \`npx agate run agent.tsx\`.

## What the project needs

- \`package.json\` has \`"type": "module"\`: agent files are ES modules.
- \`@agate/core\`, \`@agate/cli\`, \`react\`, \`zod\` and \`ai\` are dependencies; \`@agate/testing\`
  (scripted models, also used by \`--scripted\`) and \`vitest\` are dev dependencies.${
    packed
      ? `
  The \`@agate/*\` packages are installed from the tarballs \`create-agate --from\` was given
  (\`file:\` paths in \`package.json\`); once Agate is on the npm registry, replace them with
  version ranges.`
      : ''
  }
- \`tsconfig.json\` sets \`"jsx": "react-jsx"\` (React's automatic runtime) for your editor and
  \`tsc\`; \`agate run\` compiles agent files that way whatever it says. To type-check:
  \`npm install --save-dev typescript @types/react @types/node\`, then \`npx tsc --noEmit\`.
`;
}

export function gitignore(): string {
  return 'node_modules\n.agate\n';
}

/** Every file of a new project, by path relative to its directory. */
export function projectFiles(options: TemplateOptions): Record<string, string> {
  return {
    'package.json': packageJson(options),
    'tsconfig.json': tsconfigJson(),
    'agent.tsx': agentTsx(),
    'agent.test.tsx': agentTest(),
    'script.json': scriptJson(),
    'README.md': readme(options),
    '.gitignore': gitignore(),
  };
}
