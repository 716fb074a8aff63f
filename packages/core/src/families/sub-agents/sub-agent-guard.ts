import type { KeyObject } from 'node:crypto';
import { UnknownCheckpointError } from '../../approvals/approval-errors.js';
import {
  resolveApprovalKey,
  resolveApprovalPublicKey,
  toPrivateKey,
} from '../../approvals/approval-signing.js';
import { type Decision, decide } from '../../approvals/decision-ledger.js';
import type { CheckpointLedgerEntry } from '../../approvals/ledger-types.js';
import { childStateAt, parsePath } from '../../approvals/sub-agent-path.js';
import { InvalidElementError } from '../../components/render-errors.js';
import type { ToolExecuteContext } from '../../components/tool-context.js';
import type { Guard, GuardContribution, GuardHost } from '../../guard-seam/guard-family.js';
import type { CompiledTree } from '../../renderer/compile.js';
import type { CompiledTool } from '../../renderer/compiled-context.js';
import type { RunReport } from '../../runtime/session-options.js';
import type { SessionState } from '../../state/session-state.js';
import { runSubAgent } from './run-sub-agent.js';
import { SUBAGENT_FAMILY, type SubAgentConfig, type SubAgentRun } from './sub-agent-types.js';

/**
 * `<SubAgent>` on the guard seam: each declared sub-agent is a tool (added at render, like
 * `final_answer`) whose call runs a child session; the children's results go into
 * `RunResult.subAgents`; decisions on a checkpoint inside a child (`reviewer#call_3 › T-1`)
 * are made on the child's state, kept in the parent's.
 */
export class SubAgentGuard implements Guard {
  readonly name = SUBAGENT_FAMILY;
  private results: Record<string, SubAgentRun> = {};
  private readonly tools = new Map<string, { key: SubAgentConfig; tool: CompiledTool }>();

  constructor(private readonly host: GuardHost) {}

  private declared(): SubAgentConfig[] {
    return this.host.registry.ofFamily(SUBAGENT_FAMILY).map((d) => d.config as SubAgentConfig);
  }

  runStart(): void {
    this.results = {};
  }

  render(tree: CompiledTree): GuardContribution | undefined {
    const declared = this.declared();
    if (declared.length === 0) return undefined;
    // A server's tool of the same name gives way to the sub-agent (the guard set leaves it out).
    const taken = new Set(tree.tools.filter((t) => t.givesWay === undefined).map((t) => t.name));
    for (const config of declared) {
      if (taken.has(config.name)) {
        throw new InvalidElementError(
          `<SubAgent name="${config.name}"> and a <Tool> share the name "${config.name}"; the model calls tools by name, so rename one.`,
        );
      }
    }
    return { tools: declared.map((config) => this.tool(config)) };
  }

  report(): RunReport {
    return Object.keys(this.results).length === 0 ? {} : { subAgents: { ...this.results } };
  }

  /** `session.approve('reviewer#call_3 › T-1', …)` / `session.reject(...)`. */
  decide(
    path: string,
    decision: Decision,
    privateKey: string | KeyObject | undefined,
  ): CheckpointLedgerEntry {
    const parsed = parsePath(path);
    if (parsed === undefined) {
      throw new UnknownCheckpointError(path, this.host.sessionId, []);
    }
    const found = childStateAt(this.host.state(), parsed.segments);
    if (!found.ok) throw new UnknownCheckpointError(path, this.host.sessionId, [found.problem]);
    const context = this.signing(found.state.id, privateKey);
    let entry: CheckpointLedgerEntry | undefined;
    this.host.update((draft) => {
      const at = childStateAt(draft as SessionState, parsed.segments);
      if (!at.ok) return;
      entry = decide(at.state, parsed.leaf, decision, context);
    });
    const done = entry as CheckpointLedgerEntry;
    const eventPath = parsed.segments;
    if (decision.kind === 'approved') {
      this.host.emit({
        type: 'checkpoint:approved',
        tick: done.tick,
        id: parsed.leaf,
        by: done.by,
        ...(done.note !== undefined ? { note: done.note } : {}),
        path: eventPath,
      });
    } else {
      this.host.emit({
        type: 'checkpoint:rejected',
        tick: done.tick,
        id: parsed.leaf,
        by: done.by,
        feedback: done.feedback ?? '',
        path: eventPath,
      });
    }
    return done;
  }

  /** As the checkpoint family signs its own decisions, with the child's id. */
  private signing(sessionId: string, privateKey: string | KeyObject | undefined) {
    const publicKey = resolveApprovalPublicKey(this.host.options.approvalPublicKey);
    const key = resolveApprovalKey(this.host.options.approvalKey);
    const own = key !== undefined && key.trim() !== '' ? key : undefined;
    const base =
      publicKey !== undefined ? { sessionId, key: undefined, publicKey } : { sessionId, key: own };
    if (privateKey === undefined) return base;
    return { ...base, key: undefined, privateKey: toPrivateKey(privateKey) };
  }

  /** Made again only when what the model sees changes (the request stays cacheable). */
  private tool(config: SubAgentConfig): CompiledTool {
    const cached = this.tools.get(config.name);
    if (
      cached !== undefined &&
      cached.key.input === config.input &&
      cached.key.description === config.description &&
      cached.key.maxConcurrency === config.maxConcurrency
    ) {
      return cached.tool;
    }
    const name = config.name;
    const tool: CompiledTool = {
      name,
      description: config.description,
      inputSchema: config.input,
      // The latest props at call time: `agent`, `model` and `maxTicks` may change between renders.
      execute: (input: unknown, ctx: ToolExecuteContext) =>
        runSubAgent(this.host, this.current(name) ?? config, input, ctx, (run) => {
          this.results[ctx.toolCallId] = run;
        }),
      source: 'component',
      concurrency: config.maxConcurrency,
    };
    this.tools.set(name, { key: config, tool });
    return tool;
  }

  private current(name: string): SubAgentConfig | undefined {
    return this.declared().find((c) => c.name === name);
  }
}
