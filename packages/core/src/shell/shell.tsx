import { createElement, type ReactNode, useMemo, useRef } from 'react';
import { z } from 'zod';
import { Tool } from '../components/tool.js';
import {
  commandEnvironment,
  resolvePolicy,
  type SandboxOptions,
  type SandboxPolicy,
} from './policy.js';
import { runShellCommand, type ShellResult } from './run-command.js';

export const DEFAULT_SHELL_TIMEOUT_MS = 120_000;
export const DEFAULT_SHELL_OUTPUT_CHARS = 30_000;

/** Props of `<Shell>`: a command tool, sandboxed by default, with its time and output limits. */
export interface ShellProps {
  /** The tool's name. Default `bash`. */
  name?: string;
  /** The tool's description, instead of the default one. */
  description?: string;
  /** Where commands run (and, by default, the only folder they may write). */
  cwd: string;
  /**
   * What commands may touch (see `SandboxOptions`); `false` runs them on the host with your
   * rights, unsandboxed, and says so once with a warning. There is no silent fallback: a
   * sandbox that cannot start is an error at the first command.
   */
  sandbox?: SandboxOptions | false;
  /** A command running longer is killed with everything it started. Default 120 s. */
  timeoutMs?: number;
  /** Characters kept of stdout and of stderr each (the tail; the cut is said). Default 30,000. */
  maxOutputChars?: number;
  /**
   * Variables to pass in, whatever their names. Of the host's environment a command sees only
   * `PATH`, `HOME`, `LANG`, the locale categories (`LC_ALL`, `LC_CTYPE` …), `TERM`, `TZ` and `USER`.
   */
  env?: Readonly<Record<string, string>>;
}

const input = z.object({ command: z.string().min(1).describe('The shell command line to run.') });

/**
 * The standard shell tool of a coding agent: `{ command }` in, `{ exitCode, stdout, stderr,
 * timedOut }` out, every command inside a bubblewrap sandbox (docs/security.md). Its calls
 * are `category: 'shell'` with command evidence, so phase gates and todos read them unwired.
 */
export function Shell(props: ShellProps): ReactNode {
  const { cwd, sandbox, timeoutMs = DEFAULT_SHELL_TIMEOUT_MS } = props;
  const maxOutputChars = props.maxOutputChars ?? DEFAULT_SHELL_OUTPUT_CHARS;
  const policy = useMemo(
    () => (sandbox === false ? false : resolvePolicy(cwd, sandbox)),
    [cwd, sandbox],
  );
  const warned = useRef(false);
  const execute = async (
    { command }: z.output<typeof input>,
    context: { abortSignal: AbortSignal },
  ): Promise<ShellResult> => {
    if (policy === false && !warned.current) {
      warned.current = true;
      process.emitWarning(
        `<Shell name="${props.name ?? 'bash'}" sandbox={false}> runs the model's commands on the host with your rights.`,
        'AgateUnsandboxedShell',
      );
    }
    return runShellCommand({
      command,
      policy,
      cwd,
      env: commandEnvironment(process.env, props.env),
      timeoutMs,
      maxOutputChars,
      signal: context.abortSignal,
    });
  };
  return createElement(Tool<typeof input, ShellResult>, {
    name: props.name ?? 'bash',
    description: props.description ?? describeShell(cwd, policy, timeoutMs),
    input,
    execute,
    category: 'shell',
    evidence: {
      kind: 'command',
      command: (i) => i.command,
      ok: (output) => output.exitCode === 0 && !output.timedOut,
    },
    // The command runs longer than the shell's own limit only if killing it hangs.
    timeoutMs: timeoutMs + 10_000,
  });
}

function describeShell(cwd: string, policy: SandboxPolicy | false, timeoutMs: number): string {
  const where =
    policy === false
      ? ''
      : ` (sandboxed: writes only there and in /tmp, ${
          policy.network === false
            ? 'no network'
            : `network only to ${policy.network.allow.join(', ')}`
        })`;
  return (
    `Run a shell command in ${cwd}${where}. Returns exitCode, stdout, stderr and timedOut; ` +
    `commands over ${Math.round(timeoutMs / 1000)} s are killed.`
  );
}
