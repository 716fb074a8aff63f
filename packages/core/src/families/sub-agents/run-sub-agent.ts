import { awaitingReason } from '../../approvals/decision-text.js';
import {
  formatPath,
  isSubAgentProgress,
  pendingPaths,
  type SubAgentProgress,
  segmentOf,
} from '../../approvals/sub-agent-path.js';
import type { ToolExecuteContext } from '../../components/tool-context.js';
import type { JsonValue } from '../../ground/json.js';
import type { ChildSession, GuardHost } from '../../guard-seam/guard-family.js';
import { createSnapshot } from '../../persistence/snapshot.js';
import { ToolSuspended } from '../../runtime/inflight.js';
import type { RunResult, SessionOptions } from '../../runtime/session-options.js';
import type { SessionState, UsageTotals } from '../../state/session-state.js';
import { childStore } from './child-store.js';
import { SubAgentError } from './sub-agent-errors.js';
import type { SubAgentConfig, SubAgentRun } from './sub-agent-types.js';

// node:crypto taken when first used (not at import), as ground/builtins.ts does inside the
// runtime; this is family code, which imports only the public API.
const nodeCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');

/**
 * One sub-agent call: a child session on `config.agent(input)`, started fresh or continued from
 * the progress the call saved in an earlier run (its own tick, in this process or another).
 * The child's state is saved into the parent's after each of its ticks; its usage and tool calls
 * are added to the parent's; its events reach the parent's listeners with their `path`.
 */
export async function runSubAgent(
  host: GuardHost,
  config: SubAgentConfig,
  input: unknown,
  ctx: ToolExecuteContext,
  report: (run: SubAgentRun) => void,
): Promise<unknown> {
  const segment = segmentOf(config.name, ctx.toolCallId);
  const saved = isSubAgentProgress(ctx.resume) ? ctx.resume : undefined;
  const id = saved?.id ?? childId(host.sessionId, config.name, ctx.toolCallId);
  let counted = { usage: saved?.state.usage ?? ZERO, toolCalls: saved?.state.toolCalls ?? 0 };
  let child: ChildSession | undefined;
  let kept: SessionState | undefined;

  const keep = (state: SessionState) => {
    if (state === kept) return;
    kept = state;
    // Usage and tool calls since the last save add into the parent's (its budgets see them).
    const usage = state.usage;
    const toolCalls = state.toolCalls;
    const added = counted;
    if (usage !== added.usage || toolCalls !== added.toolCalls) {
      host.update((draft) => {
        draft.usage = {
          inputTokens: draft.usage.inputTokens + usage.inputTokens - added.usage.inputTokens,
          outputTokens: draft.usage.outputTokens + usage.outputTokens - added.usage.outputTokens,
          totalTokens: draft.usage.totalTokens + usage.totalTokens - added.usage.totalTokens,
        };
        draft.toolCalls += toolCalls - added.toolCalls;
      });
      counted = { usage, toolCalls };
    }
    const progress: SubAgentProgress = { kind: 'sub-agent', name: config.name, id, state };
    ctx.saveProgress?.(progress as unknown as JsonValue);
  };

  const telemetry = host.options.telemetry ?? {};
  // The child's own run is its `invoke_agent <name>` span (telemetry/genai-spans.ts), opened
  // under the parent's `execute_tool <name>` span of this call.
  // Without it (the parent traces nothing), the child's run takes the active context itself.
  const parentContext = ctx.traceContext;

  const options: SessionOptions = {
    ...inherited(host.options),
    model: config.model ?? host.options.model,
    maxTicks: config.maxTicks,
    signal: ctx.abortSignal,
    id,
    store: childStore(host, keep),
    ...(config.context !== undefined ? { context: config.context } : {}),
    ...(saved !== undefined ? { snapshot: createSnapshot(id, saved.state) } : {}),
    name: config.name,
    ...(telemetry.enabled === false
      ? {}
      : {
          telemetry: { ...telemetry, ...(parentContext !== undefined ? { parentContext } : {}) },
        }),
    onEvent: (event) => {
      // A tick of the child (or of one of its own children) ended: the parent's copy of the
      // child's state is brought up to date first, so a snapshot taken now resumes it there.
      if (event.type === 'tick:end' && child !== undefined) keep(child.state);
      host.emit({ ...event, path: [segment, ...(event.path ?? [])] });
    },
  };

  let result: RunResult;
  try {
    child = host.createSession(config.agent(input), options);
    // From its first moment the call is part of the parent's state: an interruption now
    // continues this child instead of asking the parent's model again.
    keep(child.state);
    const session = child;
    const runChild = () => session.run({ maxTicks: config.maxTicks });
    // The OpenTelemetry API is loaded when a parent traces (telemetry/otel-api.ts): only then.
    result =
      parentContext !== undefined
        ? await (await import('@opentelemetry/api')).context.with(parentContext, runChild)
        : await runChild();
    // A finished call's result replaces its progress; a waiting or interrupted one keeps it.
    if (result.status !== 'completed') keep(session.state);
  } finally {
    child?.dispose();
  }
  report({ ...result, name: config.name, path: [segment] });

  switch (result.status) {
    case 'completed':
      return result.output !== undefined ? result.output : result.text;
    case 'awaiting-approval':
    case 'paused': {
      const why = waitingReason(host.sessionId, segment, child.state, result);
      throw new ToolSuspended(result.status, why);
    }
    case 'aborted':
      // The parent's run was aborted: its abort, not a tool error (the child resumes later).
      ctx.abortSignal.throwIfAborted();
      throw new SubAgentError(config.name, result.status, result.reason ?? 'aborted');
    default:
      throw new SubAgentError(config.name, result.status, result.reason ?? result.status);
  }
}

const ZERO: UsageTotals = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/** What a child takes from its parent besides the model: limits, keys, telemetry, streaming. */
function inherited(options: Readonly<SessionOptions>): Partial<SessionOptions> {
  const out: Partial<SessionOptions> = {};
  const keys = [
    'streaming',
    'modelSettings',
    'toolTimeoutMs',
    'maxToolOutputChars',
    'approvalKey',
    'approvalPublicKey',
    'telemetry',
    'devChecks',
    'maxTimelineMessages',
    'maxEvents',
  ] as const;
  for (const key of keys) {
    if (options[key] !== undefined) (out as Record<string, unknown>)[key] = options[key];
  }
  return out;
}

/**
 * The child's session id: stable for the call (its ledgers are signed with it), a
 * valid id whatever characters the provider's call id has.
 */
export function childId(parentId: string, name: string, toolCallId: string): string {
  const clean = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');
  const id = `${parentId}.${clean(name)}-${clean(toolCallId)}`;
  if (id.length <= 128) return id;
  const hash = nodeCrypto()
    .createHash('sha256')
    .update(`${parentId}\0${name}\0${toolCallId}`)
    .digest('hex');
  return `${parentId.slice(0, 80)}.${hash.slice(0, 32)}`;
}

/** The parent's reason for waiting: the path of what waits, and how to decide on it. */
function waitingReason(
  parentId: string,
  segment: string,
  state: SessionState,
  result: RunResult,
): string {
  if (result.status === 'awaiting-approval') {
    const own = Object.entries(state.guards.checkpoints.records ?? {})
      .filter(([, r]) => r?.state === 'pending')
      .map(([cp, r]) => ({ path: [segment, cp], why: r.reason }));
    const nested = pendingPaths(state, [segment]).map((path) => ({ path, why: undefined }));
    const first = own[0] ?? nested[0];
    if (first !== undefined) {
      return `Sub-agent ${segment}: ${awaitingReason(parentId, formatPath(first.path), first.why)}`;
    }
  }
  return `Sub-agent ${segment} is ${result.status}: ${result.reason ?? ''} Call run() again to continue it.`.trim();
}
