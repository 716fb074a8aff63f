import type { JsonValue } from '../ground/json.js';
import type { SessionState } from '../state/session-state.js';

/** Between the levels of a path: `reviewer#call_3 › T-1`. */
export const PATH_SEPARATOR = ' › ';

/** What a running sub-agent call keeps in its parent's state (its in-flight progress). */
export interface SubAgentProgress {
  kind: 'sub-agent';
  /** The `<SubAgent name>`. */
  name: string;
  /** The child session's id (its ledgers are signed with it). */
  id: string;
  /** The child's whole state, as of its last finished tick. */
  state: SessionState;
}

/** The segment naming one sub-agent call: `reviewer#call_3`. */
export function segmentOf(name: string, toolCallId: string): string {
  return `${name}#${toolCallId}`;
}

/** `['reviewer#call_3', 'T-1']` → `reviewer#call_3 › T-1`. */
export function formatPath(path: readonly string[]): string {
  return path.join(PATH_SEPARATOR);
}

/** Whether an id given to approve/reject names something inside a sub-agent. */
export function isSubAgentPath(id: string): boolean {
  return id.includes('›') || /^[^#\s]+#\S+\s*[›>]/.test(id);
}

/**
 * `reviewer#call_3 › T-1` (also with `>` or without spaces) → the sub-agent segments and the
 * last id. Undefined when it is not such a path.
 */
export function parsePath(id: string): { segments: string[]; leaf: string } | undefined {
  const parts = id.split(/\s*[›>]\s*/).map((p) => p.trim());
  if (parts.length < 2 || parts.some((p) => p === '')) return undefined;
  const leaf = parts.pop() as string;
  if (!parts.every((p) => /^[^#]+#.+$/.test(p))) return undefined;
  return { segments: parts, leaf };
}

export function isSubAgentProgress(value: unknown): value is SubAgentProgress {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    v.kind === 'sub-agent' &&
    typeof v.name === 'string' &&
    typeof v.id === 'string' &&
    typeof v.state === 'object' &&
    v.state !== null
  );
}

/** Splits `reviewer#call_3` into its name and call id. */
export function splitSegment(segment: string): { name: string; toolCallId: string } {
  const at = segment.indexOf('#');
  return { name: segment.slice(0, at), toolCallId: segment.slice(at + 1) };
}

/**
 * The running sub-agents of a state, each with its segment and progress: the calls of its
 * in-flight tick that saved sub-agent progress.
 */
export function runningChildren(
  state: SessionState,
): Array<{ segment: string; progress: SubAgentProgress }> {
  const progress: Record<string, JsonValue> = state.inflight?.progress ?? {};
  const out: Array<{ segment: string; progress: SubAgentProgress }> = [];
  for (const [callId, value] of Object.entries(progress)) {
    if (isSubAgentProgress(value))
      out.push({ segment: segmentOf(value.name, callId), progress: value });
  }
  return out;
}

/**
 * The state of the sub-agent `segments` name, inside `state` (a draft works too), or a
 * sentence saying which level is missing and what runs there.
 */
export function childStateAt(
  state: SessionState,
  segments: readonly string[],
): { ok: true; state: SessionState } | { ok: false; problem: string } {
  let current = state;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    const children = runningChildren(current);
    const found = children.find((c) => c.segment === segment);
    if (found === undefined) {
      const where =
        i === 0 ? `session "${state.id}"` : `sub-agent ${formatPath(segments.slice(0, i))}`;
      const running = children.map((c) => c.segment);
      return {
        ok: false,
        problem:
          `No running sub-agent ${segment} in ${where}. ` +
          (running.length > 0
            ? `Running there: ${running.join(', ')}.`
            : 'No sub-agent is running there (a finished one keeps no state to decide on).'),
      };
    }
    current = found.progress.state;
  }
  return { ok: true, state: current };
}

/**
 * Every pending checkpoint inside the running sub-agents of `state`, as full paths
 * (`['reviewer#call_3', 'T-1']`), depth first in call order.
 */
export function pendingPaths(state: SessionState, prefix: readonly string[] = []): string[][] {
  const out: string[][] = [];
  for (const { segment, progress } of runningChildren(state)) {
    const at = [...prefix, segment];
    for (const [id, record] of Object.entries(progress.state.guards?.checkpoints?.records ?? {})) {
      if (record?.state === 'pending') out.push([...at, id]);
    }
    out.push(...pendingPaths(progress.state, at));
  }
  return out;
}
