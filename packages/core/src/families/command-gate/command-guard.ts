import { readCheckOutcome } from '../../checks/outcome/check-outcome.js';
import { verificationRan, whyNotRun } from '../../checks/shell-classifier/ran.js';
import { DEFAULT_MAX_BLOCKS, refusalCount } from '../../guard-seam/exit-refusal-text.js';
import type {
  ExitVerdict,
  Guard,
  GuardContribution,
  GuardHost,
  GuardTick,
  RunStartInfo,
} from '../../guard-seam/guard-family.js';
import type { RunReport } from '../../runtime/session-options.js';
import { commandEnvironment, resolvePolicy } from '../../shell/policy.js';
import { runShellCommand, type ShellResult } from '../../shell/run-command.js';
import { DEFAULT_SHELL_OUTPUT_CHARS, DEFAULT_SHELL_TIMEOUT_MS } from '../../shell/shell.js';
import { SandboxUnavailableError } from '../../shell/shell-errors.js';
import { type CommandGateProps, DEFAULT_TAIL_CHARS } from './command-gate-props.js';
import type {
  CommandGateRecord,
  CommandGateRun,
  CommandGateStatus,
  HostCheck,
} from './command-gate-types.js';
import { describeRun, hostCheckMessage, outputTail } from './host-check-text.js';
import { WorkspaceDigest } from './workspace-digest.js';

export const COMMAND_GATE_FAMILY = 'command-gate';
const HOST_CHECKS_KEPT = 20;

/** One gate's answer at this exit attempt. */
type Verdict =
  | { kind: 'clear' }
  /** `fresh`: the host ran the check now; else the workspace is as its last (failed) run left it. */
  | { kind: 'refuse'; run: CommandGateRun; fresh: boolean };

interface Declared extends CommandGateProps {
  cwd: string;
  timeoutMs: number;
  maxBlocks: number;
}

/**
 * `<CommandGate>` on the guard seam: at an exit attempt (`beforeExitAttempt`) the host runs each
 * gate's check itself, in the `<Shell>` sandbox, unless the workspace is as the check's last
 * passing run left it; the run goes into the timeline (a host check the model reads), the
 * state (`state.guards.commandGates`, read by `<PhaseGates>`) and a `command-gate:ran` event.
 * `exitAttempt` then refuses for each gate whose check did not pass, bounded by `maxBlocks`.
 */
export class CommandGuard implements Guard {
  readonly name = 'command-gates';
  /** By workspace: the file hashes of the last digest, so an unchanged file is not read again. */
  private readonly digests = new Map<string, WorkspaceDigest>();
  private verdicts = new Map<string, Verdict>();

  constructor(private readonly host: GuardHost) {}

  private declared(): Declared[] {
    return this.host.registry
      .ofFamily(COMMAND_GATE_FAMILY)
      .map((d) => {
        const props = d.config as CommandGateProps;
        return {
          ...props,
          cwd: props.cwd ?? process.cwd(),
          timeoutMs: props.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS,
          maxBlocks: props.maxBlocks ?? DEFAULT_MAX_BLOCKS,
        };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private record(name: string): CommandGateRecord {
    return this.host.state().guards.commandGates.gates[name] ?? { blocks: 0, runs: 0 };
  }

  engaged(): boolean {
    return this.host.registry.ofFamily(COMMAND_GATE_FAMILY).length > 0;
  }

  runStart(_info: RunStartInfo): void {
    this.verdicts = new Map();
  }

  /** While a gate's check has not passed, the model is told what the host will run. */
  render(): GuardContribution | undefined {
    const waiting = this.declared().filter((g) => this.record(g.name).passedDigest === undefined);
    if (waiting.length === 0) return undefined;
    return {
      ephemeral: waiting.map((g) => ({
        source: `command-gate:${g.name}`,
        text: `Before you can finish, the host runs \`${g.run}\` in ${g.cwd} itself (gate "${g.name}": ${g.description ?? `\`${g.run}\` passes`}); finishing is refused until it exits 0.`,
      })),
    };
  }

  async beforeExitAttempt(tick: GuardTick): Promise<void> {
    this.verdicts = new Map();
    for (const gate of this.declared()) {
      this.verdicts.set(gate.name, await this.judge(tick, gate));
    }
  }

  private digestOf(cwd: string): Promise<string> {
    let digest = this.digests.get(cwd);
    if (digest === undefined) {
      digest = new WorkspaceDigest();
      this.digests.set(cwd, digest);
    }
    return digest.of(cwd);
  }

  private async judge(tick: GuardTick, gate: Declared): Promise<Verdict> {
    const record = this.record(gate.name);
    const before = await this.digestOf(gate.cwd);
    if (record.passedDigest === before) return { kind: 'clear' };
    const last = record.lastRun;
    // Nothing changed since the check failed: it would fail again the same way.
    if (last !== undefined && !last.passed && last.notRun === undefined && last.digest === before) {
      return { kind: 'refuse', run: last, fresh: false };
    }
    const run = await this.runCheck(tick, gate);
    this.host.update((draft) => {
      const slice = draft.guards.commandGates;
      const r = slice.gates[gate.name] ?? { blocks: 0, runs: 0 };
      r.runs += 1;
      r.lastRun = run;
      if (run.passed) {
        r.passedDigest = run.digest;
        r.blocks = 0;
      } else {
        delete r.passedDigest;
      }
      slice.gates[gate.name] = r;
      const check: HostCheck = {
        tick: tick.tick,
        gate: gate.name,
        command: gate.run,
        exitCode: run.notRun !== undefined ? null : run.exitCode,
        timedOut: run.timedOut,
        ran: run.notRun === undefined,
        passed: run.passed,
        output: run.tail,
      };
      slice.checks.push(check);
      if (slice.checks.length > HOST_CHECKS_KEPT)
        slice.checks.splice(0, slice.checks.length - HOST_CHECKS_KEPT);
      draft.timeline.push({
        role: 'user',
        content: hostCheckMessage(gate.name, gate.run, run, gate.timeoutMs),
      });
    });
    return run.passed ? { kind: 'clear' } : { kind: 'refuse', run, fresh: true };
  }

  /** Runs the check as `<Shell>` runs a command; a sandbox that cannot start is a check not run. */
  private async runCheck(tick: GuardTick, gate: Declared): Promise<CommandGateRun> {
    const started = performance.now();
    const tailChars = gate.tailChars ?? DEFAULT_TAIL_CHARS;
    let result: ShellResult | undefined;
    let notRun: string | undefined;
    try {
      result = await runShellCommand({
        command: gate.run,
        policy: gate.sandbox === false ? false : resolvePolicy(gate.cwd, gate.sandbox),
        cwd: gate.cwd,
        env: commandEnvironment(process.env, gate.env),
        timeoutMs: gate.timeoutMs,
        maxOutputChars: gate.maxOutputChars ?? DEFAULT_SHELL_OUTPUT_CHARS,
        signal: tick.signal,
        ...(gate.bwrap !== undefined ? { bwrap: gate.bwrap } : {}),
      });
    } catch (error) {
      if (!SandboxUnavailableError.isInstance(error)) throw error;
      notRun = error.message;
    }
    // Aborted while it ran: the run ends aborted, the check is no evidence either way.
    tick.signal.throwIfAborted();
    const digest = await this.digestOf(gate.cwd);
    const durationMs = Math.round(performance.now() - started);
    let run: CommandGateRun;
    if (result === undefined) {
      run = {
        tick: tick.tick,
        passed: false,
        exitCode: null,
        timedOut: false,
        digest,
        notRun: notRun ?? 'it did not start',
        tail: '',
      };
    } else {
      const output = outputTail(result.stdout, result.stderr, tailChars);
      const called = {
        ...(result.exitCode !== null ? { exitCode: result.exitCode } : {}),
        output: `${result.stdout}\n${result.stderr}`,
      };
      const reading = readCheckOutcome(called);
      const ran = result.timedOut || verificationRan(called);
      run = {
        tick: tick.tick,
        passed: result.exitCode === 0 && !result.timedOut && ran,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        digest,
        ...(reading.summary !== undefined ? { summary: reading.summary } : {}),
        ...(ran ? {} : { notRun: whyNotRun(called) }),
        tail: output,
      };
    }
    this.host.emit({
      type: 'command-gate:ran',
      tick: tick.tick,
      gate: gate.name,
      command: gate.run,
      passed: run.passed,
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      durationMs,
      ...(run.summary !== undefined ? { summary: run.summary } : {}),
      ...(run.notRun !== undefined ? { notRun: run.notRun } : {}),
    });
    return run;
  }

  exitAttempt(): ExitVerdict {
    const names: string[] = [];
    const reasons: string[] = [];
    const lines: string[] = [];
    let end: string | undefined;
    let left = Number.POSITIVE_INFINITY;
    for (const gate of this.declared()) {
      const verdict = this.verdicts.get(gate.name);
      if (verdict === undefined) continue;
      const record = this.record(gate.name);
      if (verdict.kind === 'clear') {
        if (record.blocks !== 0) this.setBlocks(gate.name, 0);
        continue;
      }
      const blocks = record.blocks + 1;
      this.setBlocks(gate.name, blocks);
      const { run } = verdict;
      const what = `\`${gate.run}\` ${describeRun(run, gate.timeoutMs)}${verdict.fresh ? '' : ` at tick ${run.tick} and was not run again: the workspace has not changed since`}`;
      const reason = `Command gate "${gate.name}"${refusalCount(blocks, gate.maxBlocks)}: the host ran ${what}.`;
      names.push(gate.name);
      reasons.push(reason);
      if (blocks > gate.maxBlocks) {
        end ??= `Command gate "${gate.name}" refused ${blocks} attempts to finish (maxBlocks ${gate.maxBlocks}): the host ran ${what}. The agent did not finish; it is not a success.`;
        continue;
      }
      left = Math.min(left, gate.maxBlocks - blocks);
      lines.push(
        `- ${reason} What would satisfy it: make \`${gate.run}\` pass (exit 0); the host runs it again at your next attempt to finish once the files changed.`,
        ...(run.tail !== '' && verdict.fresh ? [`  Output (tail):\n${indent(run.tail)}`] : []),
      );
    }
    this.verdicts = new Map();
    if (names.length === 0) return { kind: 'allow' };
    if (end !== undefined) return { kind: 'end', names, reasons, reason: end };
    const notice = [
      `EXIT REFUSED: the host's own check${lines.length === 1 ? '' : 's'} did not pass.`,
      ...lines,
      left === 0
        ? 'The next attempt to finish without a passing check ends the run as blocked (not completed).'
        : `${left} more attempt${left === 1 ? '' : 's'} to finish without a passing check will be refused; the one after that ends the run as blocked (not completed).`,
    ].join('\n');
    return { kind: 'refuse', names, reasons, notice };
  }

  private setBlocks(name: string, blocks: number): void {
    this.host.update((draft) => {
      const r = draft.guards.commandGates.gates[name] ?? { blocks: 0, runs: 0 };
      r.blocks = blocks;
      draft.guards.commandGates.gates[name] = r;
    });
  }

  engagedAtMaxTicks(): string[] {
    return this.declared()
      .filter((g) => this.record(g.name).passedDigest === undefined)
      .map((g) => `command gate "${g.name}" has not passed (\`${g.run}\`)`);
  }

  report(): RunReport {
    const gates = this.declared();
    if (gates.length === 0) return {};
    return {
      commandGates: Object.fromEntries(gates.map((g) => [g.name, this.status(g.name)])),
    };
  }

  private status(name: string): CommandGateStatus {
    const record = this.record(name);
    if (record.passedDigest !== undefined) return 'passed';
    return record.lastRun === undefined ? 'not-run' : 'failed';
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
