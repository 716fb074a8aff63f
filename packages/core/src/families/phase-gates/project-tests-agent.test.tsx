/**
 * Issue 41 in a live run: a bash-only agent on a real temp directory whose project has its own
 * tests (`node --test`), under `verification="passed"` and `"project-tests"`, judged from the
 * calls and on the workspace.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { renderContext, type ScriptedTurn, scriptedModel } from '@agate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  InvalidElementError,
  PhaseGates,
  type PhaseGatesProps,
  run,
  System,
  Timeline,
  Tool,
  User,
} from '../../index.js';

const exec = promisify(execFile);

function Agent(props: { dir: string; gates: Omit<PhaseGatesProps, 'mode'> }) {
  return (
    <>
      <System>You fix bugs with bash.</System>
      <User>Fix add() in math.js so that add(2, 3) is 5.</User>
      <Timeline />
      <Tool
        name="bash"
        description="Run a bash command in the repository."
        input={z.object({ command: z.string() })}
        category="shell"
        execute={async ({ command }) => {
          try {
            const { stdout, stderr } = await exec('bash', ['-c', command], { cwd: props.dir });
            return { exitCode: 0, output: stdout + stderr };
          } catch (error) {
            const e = error as { code?: number; stdout?: string; stderr?: string };
            return {
              exitCode: typeof e.code === 'number' ? e.code : 1,
              output: `${e.stdout ?? ''}${e.stderr ?? ''}`,
            };
          }
        }}
      />
      <PhaseGates mode="block" maxBlocks={3} {...props.gates} />
    </>
  );
}

const bash = (command: string): ScriptedTurn => ({
  toolCalls: [{ toolName: 'bash', input: { command } }],
});

const REPRO = `cat > repro.js <<'EOF'
const { add } = require('./math.js');
if (add(2, 3) !== 5) { console.log('still broken'); process.exit(1); }
console.log('fixed');
EOF`;
const PROJECT_TESTS = 'node --test test/math.test.js';

/** The texts of every request after the first, to find the refusals in. */
const prompts = (model: ReturnType<typeof scriptedModel>) =>
  model.calls.map((c) => JSON.stringify(c.prompt));

describe('a bash agent whose project has its own tests', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agate-project-tests-'));
    await writeFile(join(dir, 'math.js'), 'exports.add = (a, b) => a - b;\n');
    await mkdir(join(dir, 'test'));
    await writeFile(
      join(dir, 'test', 'math.test.js'),
      "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../math.js');\ntest('add', () => assert.strictEqual(add(2, 3), 5));\n",
    );
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const workspace of [false, true]) {
    const how = workspace ? 'on the workspace' : 'from the calls';
    it(`'project-tests': its own reproduction script is not enough; the project's tests are (${how})`, async () => {
      const model = scriptedModel([
        bash('cat math.js'),
        bash(REPRO),
        bash('node repro.js'),
        bash("sed -i 's/a - b/a + b/' math.js"),
        bash('node repro.js'),
        'Fixed add().',
        bash(PROJECT_TESTS),
        bash('rm repro.js'),
        'Fixed add(), and the tests pass.',
      ]);
      const result = await run(
        <Agent
          dir={dir}
          gates={{ verification: 'project-tests', ...(workspace ? { workspace: dir } : {}) }}
        />,
        { model },
      );
      const refusal = prompts(model)[6] ?? '';
      expect(refusal).toContain('EXIT REFUSED (phase gates');
      expect(refusal).toContain('only your own script ran after your change (node repro.js)');
      expect(refusal).toContain("run the project's own tests that cover your change to math.js");
      expect(result.status).toBe('completed');
      expect(result.phase?.verification).toBe(true);
    });

    it(`'passed': the project's failing tests are named with their summary, then pass (${how})`, async () => {
      const model = scriptedModel([
        bash('cat math.js'),
        bash("sed -i 's/a - b/a * b/' math.js"),
        bash(PROJECT_TESTS),
        'Fixed.',
        bash("sed -i 's/a \\* b/a + b/' math.js"),
        bash(PROJECT_TESTS),
        'Fixed now.',
      ]);
      const result = await run(
        <Agent
          dir={dir}
          gates={{ verification: 'passed', ...(workspace ? { workspace: dir } : {}) }}
        />,
        { model },
      );
      const refusal = prompts(model)[4] ?? '';
      expect(refusal).toContain(
        'the checks have not passed yet: your last check (node --test test/math.test.js, step 3) failed: exit code 1, \\"ℹ fail 1\\"',
      );
      expect(result.status).toBe('completed');
    });
  }

  it("'project-tests' with the workspace: a change after the project's tests needs them again", async () => {
    const model = scriptedModel([
      bash('cat math.js'),
      bash("sed -i 's/a - b/a + b/' math.js"),
      bash(PROJECT_TESTS),
      bash(REPRO),
      bash("sed -i 's/a + b/b + a/' math.js && node repro.js"),
      'Done.',
      bash(PROJECT_TESTS),
      bash('rm repro.js'),
      'Done.',
    ]);
    const result = await run(
      <Agent dir={dir} gates={{ verification: 'project-tests', workspace: dir }} />,
      { model },
    );
    expect(prompts(model)[6]).toContain('only your own script ran after your change');
    expect(result.status).toBe('completed');
  });

  it('bad verification and testCommands values are clear errors at render', () => {
    const bad = (gates: Record<string, unknown>) => () =>
      renderContext(<PhaseGates mode="block" {...(gates as object)} />);
    expect(bad({ verification: 'strict' })).toThrow(InvalidElementError);
    expect(bad({ verification: 'strict' })).toThrow(/"ran".*"passed".*"project-tests"/);
    expect(bad({ testCommands: 'make check' })).toThrow(/testCommands/);
    expect(bad({ testCommands: ['make check', 3] })).toThrow(/testCommands/);
    expect(bad({ testCommands: [''] })).toThrow(/testCommands/);
    expect(
      bad({ verification: 'project-tests', testCommands: ['make check', /^tox\b/] }),
    ).not.toThrow();
    // 'after-change' was a name of 'ran' never published: refused like any other word.
    expect(bad({ verification: 'after-change' })).toThrow(InvalidElementError);
  });
});
