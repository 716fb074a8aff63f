import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgateEvent,
  PhaseGates,
  type RunResult,
  run,
  Shell,
  System,
  Timeline,
  User,
} from '@agate/core';
import { type ScriptedTurn, scriptedModel } from '@agate/testing';

/** A bash-only coding agent held to phase gates in block mode, judged on its workspace. */
export function ShellAgent(props: { repo: string }) {
  return (
    <>
      <System>
        You fix bugs in the repository with bash. Verify your change before you finish.
      </System>
      <User>Fix add() in math.js: add(2, 3) must be 5.</User>
      <Timeline />
      {/* Every command runs in a bubblewrap sandbox: writes only in the repository, no network. */}
      <Shell name="bash" cwd={props.repo} timeoutMs={30_000} />
      <PhaseGates mode="block" workspace={props.repo} />
    </>
  );
}

/** A throwaway repository with the bug. */
export async function createRepo(): Promise<string> {
  const repo = await mkdtemp(join(tmpdir(), 'agate-phase-agent-'));
  await writeFile(join(repo, 'math.js'), 'exports.add = (a, b) => a - b;\n');
  return repo;
}

const bash = (command: string): ScriptedTurn => ({
  toolCalls: [{ toolName: 'bash', input: { command } }],
});
const REPRO = `cat > repro.js <<'EOF'
const { add } = require('./math.js');
console.log('add(2, 3) =', add(2, 3));
process.exit(add(2, 3) === 5 ? 0 : 1);
EOF`;

/**
 * The script of a model that fixes the bug, tests it, then tidies up once more after the test
 * (`sloppy`): block mode refuses that finish, and the model verifies again.
 */
export function shellScript(sloppy: boolean): ScriptedTurn[] {
  return [
    bash('grep -n "add" math.js && cat math.js'),
    bash(REPRO),
    bash('node repro.js'),
    bash("sed -i 's/a - b/a + b/' math.js"),
    bash('node repro.js'),
    ...(sloppy
      ? [
          bash("sed -i 's/(a, b) =>/(a, b) =>  /' math.js && rm repro.js"),
          'Fixed.',
          bash('node -e "console.log(require(\'./math.js\').add(2, 3))"'),
        ]
      : [bash('rm repro.js')]),
    'Fixed add(): it now adds.',
  ];
}

export async function runShellAgent(
  repo: string,
  sloppy: boolean,
  onEvent?: (e: AgateEvent) => void,
): Promise<RunResult> {
  return run(<ShellAgent repo={repo} />, {
    model: scriptedModel(shellScript(sloppy)),
    ...(onEvent ? { onEvent } : {}),
  });
}
