import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgateEvent, PhaseGates, run, System, Timeline, Tool, User } from '../../index.js';

const exec = promisify(execFile);

/** A real shell tool: runs the command with bash in the workspace, returns `{ exitCode, output }`. */
function Bash(props: { dir: string }) {
  return (
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
  );
}

function ShellAgent(props: { dir: string; workspace?: boolean }) {
  return (
    <>
      <System>You fix bugs with bash.</System>
      <User>Fix add() in math.js so that add(2, 3) is 5.</User>
      <Timeline />
      <Bash dir={props.dir} />
      <PhaseGates mode="block" {...(props.workspace ? { workspace: props.dir } : {})} />
    </>
  );
}

const bash = (command: string): ScriptedTurn => ({
  toolCalls: [{ toolName: 'bash', input: { command } }],
});

const FIX = "sed -i 's/a - b/a + b/' math.js";
const REPRO = `cat > repro.js <<'EOF'
const { add } = require('./math.js');
if (add(2, 3) !== 5) { console.log('FAIL'); process.exit(1); }
console.log('ok');
EOF`;

describe('a bash-only agent under block mode', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agate-phase-'));
    await writeFile(join(dir, 'math.js'), 'exports.add = (a, b) => a - b;\n');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const workspace of [false, true]) {
    const how = workspace ? 'with a workspace' : 'judged from the calls';
    it(`finishes completed after deleting its reproduce script once the tests ran (${how})`, async () => {
      const model = scriptedModel([
        bash('grep -n "add" math.js'),
        bash('cat math.js'),
        bash(REPRO),
        bash('node repro.js'),
        bash(FIX),
        bash('node repro.js'),
        bash('rm repro.js'),
        'Fixed add().',
      ]);
      const result = await run(<ShellAgent dir={dir} workspace={workspace} />, { model });
      expect(result.status).toBe('completed');
      expect(result.phase).toMatchObject({
        understanding: true,
        change: true,
        verification: true,
        readiness: true,
      });
      expect(await readFile(join(dir, 'math.js'), 'utf8')).toContain('a + b');
    });

    it(`is refused when it edits after testing, naming the file and its shell (${how})`, async () => {
      const events: AgateEvent[] = [];
      const model = scriptedModel([
        bash('cat math.js'),
        bash(`grep -rn add . && ${FIX}`),
        bash(REPRO),
        bash('node repro.js'),
        bash("sed -i 's/a + b/(a + b)/' math.js && rm repro.js"),
        'Done.',
        bash('node -e "require(\'./math.js\')"'),
        'Done now.',
      ]);
      const result = await run(<ShellAgent dir={dir} workspace={workspace} />, {
        model,
        onEvent: (e) => events.push(e),
      });
      const blocked = events.filter((e) => e.type === 'exit:blocked');
      expect(blocked).toHaveLength(1);
      const refusal = JSON.stringify(model.calls[6]?.prompt);
      expect(refusal).toContain('EXIT REFUSED (phase gates');
      expect(refusal).toContain('math.js');
      expect(refusal).toContain('bash (the tests');
      expect(result.status).toBe('completed');
    });
  }

  it('does not count a verification that did not run', async () => {
    const model = scriptedModel([
      bash('cat math.js'),
      bash(`grep -n add math.js && ${FIX}`),
      bash('./run_tests.sh'),
      'Done.',
      'Done.',
    ]);
    const result = await run(<ShellAgent dir={dir} />, { model });
    const refusal = JSON.stringify(model.calls[4]?.prompt);
    expect(refusal).toContain('did not run (the command was not found)');
    expect(result.phase?.verification).toBe(false);
  });
});
