/**
 * The `coding` template: a bash-only agent in `<Shell>`'s bubblewrap sandbox that may finish
 * only when the host ran the project's tests itself (`<CommandGate>`), with `<PhaseGates>`
 * warning when it edits without verifying. Its workspace is a small `node --test` project
 * with a bug, written by the scaffold and reset by `npm run demo`.
 */
import { modelTest, modelTs, realModelReadme, runTsx } from './model-template.js';
import {
  envExample,
  gitignore,
  type ProjectScripts,
  packageJson,
  packedNote,
  type TemplateOptions,
  tsconfigJson,
} from './templates.js';

const SCRIPTS: ProjectScripts = {
  test: 'vitest run',
  typecheck: 'tsc --noEmit',
  start: 'agate run agent.tsx',
  'start:sdk': 'tsx run.tsx',
  // Node strips workspace.ts's types itself (22.18+): the demo starts from the bug each time.
  demo: 'node workspace.ts && agate run agent.tsx --scripted script.json',
};

/** The bug the agent fixes: add() subtracts. */
const BROKEN = 'export const add = (a, b) => a - b;\n';

/** In `workspace/test/`, where `node --test` finds it and vitest (`*.test.*`) does not. */
const WORKSPACE_TEST = `import assert from 'node:assert';
import test from 'node:test';
import { add } from '../math.js';

test('adds two numbers', () => {
  assert.strictEqual(add(2, 3), 5);
});

test('adding zero changes nothing', () => {
  assert.strictEqual(add(7, 0), 7);
});
`;

export function codingAgentTsx(): string {
  return `import { fileURLToPath } from 'node:url';
import { CommandGate, PhaseGates, Shell, System, Timeline, User } from '@agate/core';

/** The project's own test command: the gate runs it, never the model's word for it. */
export const TEST_COMMAND = 'node --test';

/** The project the agent works on (\`npm run demo\` resets it to the bug). */
export const WORKSPACE = fileURLToPath(new URL('./workspace/', import.meta.url));

export interface CodingAgentProps {
  /** The project (absolute path): where bash runs and what the gate tests. */
  repo?: string;
  /** Refused attempts to finish before the run ends \`blocked\`. */
  maxBlocks?: number;
  /** The bubblewrap binary the gate runs its check with (default \`bwrap\` on the PATH). */
  bwrap?: string;
}

/**
 * A bash-only coding agent. At every attempt to finish after the project changed, the host
 * runs the tests itself, in the same sandbox as the agent's bash, and refuses with the
 * runner's summary while they fail. Without bubblewrap nothing runs on the host: the gate
 * refuses and says bubblewrap is missing.
 */
export function CodingAgent({ repo = WORKSPACE, maxBlocks = 3, bwrap }: CodingAgentProps) {
  return (
    <>
      <System>You fix bugs in a JavaScript project with bash. Keep your changes small.</System>
      <User>The tests fail: fix add() in math.js.</User>
      <Timeline />
      {/* Every command runs in a bubblewrap sandbox: writes only in the project, no network. */}
      <Shell name="bash" cwd={repo} timeoutMs={30_000} />
      <CommandGate
        name="tests"
        run={TEST_COMMAND}
        cwd={repo}
        timeoutMs={60_000}
        maxBlocks={maxBlocks}
        {...(bwrap !== undefined ? { bwrap } : {})}
      />
      {/* Warnings in the context when the agent edits without verifying, or makes no progress. */}
      <PhaseGates mode="warn" />
    </>
  );
}

/** What \`agate run agent.tsx\` runs: the agent on ./workspace. */
export default function Agent() {
  return <CodingAgent />;
}
`;
}

export function codingWorkspaceTs(): string {
  return `import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bug: add() subtracts. */
export const BROKEN = ${JSON.stringify(BROKEN)};

const TEST = ${JSON.stringify(WORKSPACE_TEST)};

/** Writes the small node --test project with its bug into \`dir\` (over what is there). */
export async function writeWorkspace(dir: string): Promise<void> {
  await mkdir(join(dir, 'test'), { recursive: true });
  await writeFile(join(dir, 'math.js'), BROKEN);
  await writeFile(join(dir, 'test', 'math.js'), TEST);
}

// \`node workspace.ts\` (npm run demo): put ./workspace back to the bug.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeWorkspace(fileURLToPath(new URL('./workspace/', import.meta.url)));
}
`;
}

export function codingAgentTest(): string {
  return `import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgateEvent } from '@agate/core';
import { createSession } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CodingAgent } from './agent.js';
import { BROKEN, writeWorkspace } from './workspace.js';
import script from './script.json' with { type: 'json' };

/** The agent's bash and the gate's check both run in bubblewrap; without it they refuse. */
const hasBwrap =
  spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0;

const ran = (events: readonly AgateEvent[]) =>
  events.filter((e) => e.type === 'command-gate:ran');

let repo: string;
afterEach(async () => {
  await rm(repo, { recursive: true, force: true });
});
const freshWorkspace = async () => {
  repo = await mkdtemp(join(tmpdir(), 'coding-agent-'));
  await writeWorkspace(repo);
  return repo;
};

describe('the coding agent', () => {
  it.skipIf(!hasBwrap)(
    'a "done" before the fix is refused by the host\\'s test run; after the fix it completes',
    async () => {
      const cwd = await freshWorkspace();
      const session = createSession(<CodingAgent repo={cwd} />, {
        model: scriptedModel(script),
      });
      const result = await session.run();
      expect(result.status).toBe('completed');
      // The host ran the real suite twice: failing at the first claim, passing after the fix.
      expect(ran(result.events).map((e) => 'passed' in e && e.passed)).toEqual([false, true]);
      expect(await readFile(join(cwd, 'math.js'), 'utf8')).toBe(
        'export const add = (a, b) => a + b;\\n',
      );
    },
    // Four sandboxed processes (two bash calls, two test runs): more than vitest's 5 s default
    // on a busy machine.
    30_000,
  );

  it('without bubblewrap the gate refuses to finish, says so, and runs nothing on the host', async () => {
    const cwd = await freshWorkspace();
    const session = createSession(
      <CodingAgent repo={cwd} maxBlocks={1} bwrap={join(cwd, 'no-such-bwrap')} />,
      { model: scriptedModel(['Done.'], { whenExhausted: 'repeat-last' }), maxTicks: 10 },
    );
    const result = await session.run();
    expect(result.status).toBe('blocked');
    const refusals = result.events.filter((e) => e.type === 'exit:blocked');
    expect(JSON.stringify(refusals[0])).toMatch(/bubblewrap|bwrap/);
    expect(await readFile(join(cwd, 'math.js'), 'utf8')).toBe(BROKEN);
  });
});
`;
}

/** For \`agate run agent.tsx --scripted script.json\`: claims "done" too early, then fixes. */
export function codingScriptJson(): string {
  const bash = (command: string) => ({ toolCalls: [{ toolName: 'bash', input: { command } }] });
  const turns = [
    bash('cat math.js'),
    'Done: add() is fixed.',
    bash("sed -i 's/a - b/a + b/' math.js && cat math.js"),
    'Fixed add(): it adds now, and the tests pass.',
  ];
  return `${JSON.stringify(turns, null, 2)}\n`;
}

export function codingReadme({ name, tarballs = {} }: TemplateOptions): string {
  const packed = Object.keys(tarballs).length > 0;
  return `# ${name}

An [Agate](https://agate-dev.github.io/agate/) coding agent: \`agent.tsx\` fixes a bug in
\`workspace/\` (a small \`node --test\` project whose \`add()\` subtracts) with one tool, \`bash\`,
and may finish only when **the host** ran the tests and they passed.

- \`<Shell>\` gives the model bash inside a bubblewrap sandbox: writes only in the workspace,
  no network.
- \`<CommandGate>\` runs \`node --test\` itself, in the same sandbox, at every attempt to finish
  after the workspace changed, and refuses with the runner's summary while it fails. After
  \`maxBlocks\` refusals the run ends \`blocked\`, never \`completed\`.
- \`<PhaseGates mode="warn">\` puts warnings in the context when the agent edits without
  verifying or makes no progress.

\`\`\`sh
npm install
npm test          # the scripted-model tests in agent.test.tsx
npm run demo      # offline: resets workspace/ to the bug, runs the turns in script.json
\`\`\`

In the demo the model says "Done" before fixing anything: the host runs the tests (\`fail\`),
refuses, the model fixes \`add()\`, the host runs them again (\`pass\`) and the run completes.

It needs bubblewrap (\`apt-get install -y bubblewrap\`, Linux). Without it nothing runs on the
host: bash calls and the gate's check refuse, and the refusal says bubblewrap is missing.

${realModelReadme()}
(\`node workspace.ts\` first puts the bug back.)

## What to change first

- **The project**: \`repo\` on \`<CodingAgent>\` (default \`./workspace\`) — point it at yours.
- **The check**: \`TEST_COMMAND\` in \`agent.tsx\`: your project's test command (\`npm test\`,
  \`pytest -q\`, \`cargo test\`).
- **The sandbox**: \`sandbox\` on \`<Shell>\` and \`<CommandGate>\` (network, extra read or write
  paths); \`timeoutMs\` if the suite is slow.
- **How strict**: \`maxBlocks\`; \`<PhaseGates mode="block">\` to refuse finishing until the
  work was verified.
${packedNote(packed)}`;
}

/** Every file of a new `coding` project, by path relative to its directory. */
export function codingProjectFiles(options: TemplateOptions): Record<string, string> {
  return {
    'package.json': packageJson(options, SCRIPTS),
    'tsconfig.json': codingTsconfigJson(),
    'agent.tsx': codingAgentTsx(),
    'agent.test.tsx': codingAgentTest(),
    'workspace.ts': codingWorkspaceTs(),
    'workspace/math.js': BROKEN,
    'workspace/test/math.js': WORKSPACE_TEST,
    'script.json': codingScriptJson(),
    'model.ts': modelTs(),
    'model.test.tsx': modelTest(),
    'run.tsx': runTsx(),
    'README.md': codingReadme(options),
    '.gitignore': gitignore(),
    '.env.example': envExample(),
  };
}

/** The default's settings, plus JSON imports (the test reads script.json). */
function codingTsconfigJson(): string {
  const config = JSON.parse(tsconfigJson()) as { compilerOptions: Record<string, unknown> };
  config.compilerOptions.resolveJsonModule = true;
  return `${JSON.stringify(config, null, 2)}\n`;
}
