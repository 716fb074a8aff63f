import { spawn } from 'node:child_process';

// A stop for a hung child, not a budget: under load the long-history child alone has taken over
// 10 minutes on this shared 2-core machine.
const CHILD_TIMEOUT_MS = 40 * 60_000;

/**
 * Runs `script` in a fresh Node process with this process's loader flags (tsx, conditions) and
 * `task` as its argument, and resolves with the JSON of its `RESULT <json>` stdout line. One
 * measurement per process: memory peaks don't mix, NODE_ENV picks the React build at import,
 * and no heap or JIT state of an earlier measurement weighs on the next.
 */
export function runChildProcess<T>(
  script: string,
  task: { kind: string },
  env: Record<string, string>,
  extraFlags: string[] = [],
): Promise<T> {
  const flags = [...process.execArgv.filter((f) => !f.startsWith('--cpu-prof')), ...extraFlags];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, script, JSON.stringify(task)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: CHILD_TIMEOUT_MS,
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined) {
        reject(
          new Error(
            `benchmark child ${task.kind} failed (exit ${code ?? signal}): ${stdout.slice(-500)}`,
          ),
        );
        return;
      }
      resolve(JSON.parse(line.slice('RESULT '.length)) as T);
    });
  });
}

/**
 * The body of a child process: runs `main` on the task in argv[2], prints `RESULT <json>` on
 * stdout (progress goes to stderr), and exits non-zero on an error.
 */
export function childMain<T>(main: (task: T) => Promise<unknown>): void {
  const task = JSON.parse(process.argv[2] ?? '{}') as T;
  main(task).then(
    (result) => {
      process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
    },
    (error: unknown) => {
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
