import { InvalidElementError } from '../../components/render-errors.js';
import { AgateError } from '../../ground/agate-error.js';
import type {
  BeforeModelVerdict,
  ExitVerdict,
  Guard,
  GuardContribution,
  GuardHost,
  GuardTick,
  ToolCallOutcome,
  ToolCallVerdict,
} from '../../guard-seam/guard-family.js';
import type { CompiledTree } from '../../renderer/compile.js';
import type { CompiledTool, EphemeralBlock } from '../../renderer/compiled-context.js';
import { defineToolProp } from '../../renderer/tool-props.js';
import type { RunReport } from '../../runtime/session-options.js';
import { sameItems } from '../../runtime/tool-index.js';
import type { TickToolCall } from '../../state/tick-result.js';
import { checkStepEvidence, describeEvidence } from './check-step-evidence.js';
import { createLedger, type Ledger } from './evidence-ledger.js';
import { formatTodoItems, formatTodoList } from './format-todos.js';
import { receiptOf } from './receipt.js';
import { matchStep } from './step-match.js';
import {
  COMPLETE_STEP_TOOL,
  type CompleteStepInput,
  createTodoTools,
  TODO_WRITE_TOOL,
  type TodoWriteInput,
  todoWriteInput,
} from './todo-tools.js';
import { blockingItems, checkTodoWrite, type TodoWriteCheck } from './todo-transition.js';
import type { TodoItem } from './todo-types.js';

// The <Tool> prop this family reads; its shape is checked when a call's receipt is made.
defineToolProp('evidence');

export const EVIDENCE_FAMILY = 'evidence';

/** What `<Todos>` declares. */
export interface TodosConfig {
  requireComplete: boolean;
  maxBlocks: number;
}

const PROCEED: BeforeModelVerdict = { kind: 'proceed' };

/**
 * The evidence family on the guard seam: a receipt for every executed tool call of the turn
 * (in memory only, see `ledger.ts`), the `todo_write` and `complete_step` tools of `<Todos>`,
 * the transition check that refuses an unsigned completion before `todo_write` runs, and the
 * exit refusal of `<Todos requireComplete>`. The decisions are pure functions beside this file.
 *
 * A turn is one `run()`: `runStart` clears the ledger. Ticks driven by `session.tick()` outside
 * a run form one turn of their own, from the first such tick after a run (or from the session's
 * creation or restore) until the next `run()`.
 */
export class EvidenceGuard implements Guard {
  readonly name = EVIDENCE_FAMILY;
  readonly reservedTools = [TODO_WRITE_TOOL, COMPLETE_STEP_TOOL];
  /** The current turn's receipts and sign-offs. Never in the context, the schemas or the state. */
  readonly ledger: Ledger = createLedger();
  private turn: 'run' | 'ticks' = 'ticks';
  /** The last config rendered, so an incomplete required list keeps blocking after unmount. */
  private lastConfig: TodosConfig | undefined;
  private readonly todoWrite: CompiledTool;
  private readonly completeStep: CompiledTool;

  constructor(private readonly host: GuardHost) {
    ({ todoWrite: this.todoWrite, completeStep: this.completeStep } = createTodoTools({
      write: (input) => this.write(input),
      complete: (input) => this.complete(input),
    }));
  }

  private get items(): TodoItem[] {
    return this.host.state().guards.todos.items;
  }

  /** The mounted `<Todos>`, or the last one while its required list is incomplete. */
  private config(): TodosConfig | undefined {
    const mounted = this.host.registry.ofFamily(EVIDENCE_FAMILY)[0]?.config as
      | TodosConfig
      | undefined;
    if (mounted !== undefined) {
      this.lastConfig = mounted;
      return mounted;
    }
    if (this.lastConfig?.requireComplete && blockingItems(this.items).length > 0) {
      this.host.warnOnce(
        'todos-unmounted',
        'todos-unmounted',
        '<Todos requireComplete> unmounted while items are not completed. It still blocks finishing; the runtime keeps the list and its tools in the context until every item is completed.',
      );
      return this.lastConfig;
    }
    this.lastConfig = undefined;
    return undefined;
  }

  runStart(): void {
    this.ledger.clear();
    this.turn = 'run';
  }

  beforeModelCall(): BeforeModelVerdict {
    // session.tick() outside run(): the first such tick after a run starts a new turn.
    if (this.turn === 'run' && this.host.state().status !== 'running') {
      this.ledger.clear();
      this.turn = 'ticks';
    }
    return PROCEED;
  }

  render(tree: CompiledTree): GuardContribution | undefined {
    const config = this.config();
    if (config === undefined) return undefined;
    // The same tools as the last render that passed (the usual tick): no name to check again.
    if (!sameItems(this.checkedTools, tree.tools)) {
      for (const name of [TODO_WRITE_TOOL, COMPLETE_STEP_TOOL]) {
        if (tree.tools.some((t) => t.name === name)) {
          throw new InvalidElementError(
            `A <Tool> is named "${name}", which <Todos> reserves for its own tool. Rename the tool.`,
          );
        }
      }
      this.checkedTools = [...tree.tools];
    }
    // The list is written again only when it or the config changed (most ticks change neither).
    const items = this.items;
    const { requireComplete } = config;
    const last = this.rendered;
    if (last?.items !== items || last.requireComplete !== requireComplete) {
      this.rendered = {
        items,
        requireComplete,
        // Shared by the renders until the list changes: frozen.
        contribution: Object.freeze({
          tools: Object.freeze([this.todoWrite, this.completeStep]) as CompiledTool[],
          ephemeral: Object.freeze([
            Object.freeze({ text: formatTodoList(items, { requireComplete }), source: 'todos' }),
          ]) as EphemeralBlock[],
        }),
      };
    }
    return this.rendered!.contribution;
  }
  private checkedTools: readonly CompiledTool[] = [];
  private rendered:
    | { items: readonly TodoItem[]; requireComplete: boolean; contribution: GuardContribution }
    | undefined;

  /** An unsigned completion is refused before `todo_write` runs; the list stays as it was. */
  beforeToolCall(tick: GuardTick, call: TickToolCall): ToolCallVerdict {
    if (call.toolName !== TODO_WRITE_TOOL || !tick.context.tools.includes(this.todoWrite)) {
      return { kind: 'allow' };
    }
    const parsed = todoWriteInput.safeParse(call.input);
    // Invalid arguments are the runtime's to report, with the expected schema.
    if (!parsed.success) return { kind: 'allow' };
    const check = this.checkWrite(parsed.data);
    return check.ok ? { kind: 'allow' } : { kind: 'refuse', message: check.message };
  }

  afterToolCall(tick: GuardTick, outcome: ToolCallOutcome): void {
    const { receipt, problem } = receiptOf(outcome, tick.tick);
    if (receipt !== undefined) this.ledger.record(receipt);
    if (problem !== undefined) {
      this.host.warnOnce(
        `evidence:${outcome.call.toolName}:${problem.part}`,
        'evidence-prop',
        `<Tool name="${outcome.call.toolName}"> evidence.${problem.part} threw (${problem.message}); ` +
          (problem.part === 'ok'
            ? 'the call was recorded as failed.'
            : 'the call was recorded without evidence.'),
      );
    }
  }

  exitAttempt(): ExitVerdict {
    const config = this.config();
    if (!config?.requireComplete) return { kind: 'allow' };
    const open = blockingItems(this.items);
    if (open.length === 0) {
      this.resetBlocks();
      return { kind: 'allow' };
    }
    const blocks = this.host.state().guards.todos.blocks + 1;
    this.host.update((draft) => {
      draft.guards.todos.blocks = blocks;
    });
    const allDropped = open.every(({ item }) => item.status === 'dropped');
    const reasons = open.map(({ number, item }) =>
      item.status === 'dropped'
        ? `Todo ${number} "${item.content}" was dropped: ${item.reason ?? ''}`
        : `Todo ${number} "${item.content}" is ${item.status}.`,
    );
    const what = allDropped
      ? `<Todos requireComplete>: every item was dropped, so nothing was done`
      : `<Todos requireComplete>: ${open.length} item${open.length === 1 ? ' is' : 's are'} not completed`;
    if (blocks > config.maxBlocks) {
      return {
        kind: 'end',
        names: ['todos'],
        reasons,
        reason: `${what} after ${blocks} attempts to finish (maxBlocks ${config.maxBlocks}): ${open.map(({ number, item }) => `${number}. "${item.content}" (${item.status})`).join(', ')}. What would satisfy it: do each item, sign it off with ${COMPLETE_STEP_TOOL}, then mark it completed with ${TODO_WRITE_TOOL}.`,
      };
    }
    const left = config.maxBlocks - blocks;
    return {
      kind: 'refuse',
      names: ['todos'],
      reasons,
      notice: [
        `EXIT REFUSED: ${what}.`,
        ...reasons.map((r) => `- ${r}`),
        `Do each item, sign it off with ${COMPLETE_STEP_TOOL} (evidence: the command you ran, the files you read or edited), then mark it completed with ${TODO_WRITE_TOOL}.`,
        left === 0
          ? 'The next attempt to finish with items not completed ends the run as blocked (not completed).'
          : `${left} more attempt${left === 1 ? '' : 's'} to finish with items not completed will be refused; the one after that ends the run as blocked (not completed).`,
      ].join('\n'),
    };
  }

  engagedAtMaxTicks(): string[] {
    if (!this.config()?.requireComplete) return [];
    const open = blockingItems(this.items);
    if (open.length === 0) return [];
    return [
      `the todo list has ${open.length} item${open.length === 1 ? '' : 's'} not completed (${open.map(({ number, item }) => `${number}. "${item.content}" ${item.status}`).join(', ')})`,
    ];
  }

  report(): RunReport {
    return { todos: this.items };
  }

  // ---- the tools -------------------------------------------------------------------------

  private checkWrite(input: TodoWriteInput): TodoWriteCheck {
    return checkTodoWrite(this.items, input.todos, this.ledger.signOffs());
  }

  private write(input: TodoWriteInput): string {
    const check = this.checkWrite(input);
    // beforeToolCall refused this already; checked again so no path can skip the rule.
    if (!check.ok) throw new AgateError(check.message);
    const tick = this.host.state().tick + 1;
    this.host.update((draft) => {
      draft.guards.todos.items = check.items;
      if (blockingItems(check.items).length === 0) draft.guards.todos.blocks = 0;
    });
    const items = this.items;
    this.host.emit({ type: 'todos:changed', tick, todos: items });
    const count = (status: TodoItem['status']) => items.filter((i) => i.status === status).length;
    return `Todo list updated: ${items.length} item${items.length === 1 ? '' : 's'} (${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending).`;
  }

  private complete(input: CompleteStepInput): string {
    const items = this.items;
    if (items.length === 0) {
      throw new AgateError('The todo list is empty: write it with todo_write first.');
    }
    const match = matchStep(items, input.step);
    if (match.kind !== 'match') {
      throw new AgateError(
        `${match.kind === 'none' ? 'No todo item matches' : 'More than one todo item matches'} step ${JSON.stringify(input.step)}. Name one item by its content, its activeForm or its number:\n${formatTodoItems(items)}`,
      );
    }
    const tick = this.host.state().tick + 1;
    const check = checkStepEvidence(this.ledger, input.evidence, tick);
    if (!check.ok) throw new AgateError(check.message);
    const { evidence } = check;
    const number = match.index + 1;
    const { content, activeForm } = match.item;
    this.ledger.signOff({ tick, content, activeForm, number, evidence });
    this.host.update((draft) => {
      const item = draft.guards.todos.items[match.index];
      if (item !== undefined) item.evidence = evidence;
    });
    this.host.emit({ type: 'step:completed', tick, step: number, content, evidence });
    const summary = describeEvidence(evidence);
    const next =
      match.item.status === 'completed'
        ? 'It is already marked completed.'
        : `Now mark it completed with ${TODO_WRITE_TOOL}.`;
    return evidence.verified
      ? `Step ${number} "${content}" signed off (${summary}). ${next}`
      : `Step ${number} "${content}" signed off with manual evidence, recorded as manual and UNVERIFIED: the host could not check it against anything that ran. ${next}`;
  }

  private resetBlocks(): void {
    if (this.host.state().guards.todos.blocks === 0) return;
    this.host.update((draft) => {
      draft.guards.todos.blocks = 0;
    });
  }
}
