import type { ZodType } from 'zod';
import { InvalidElementError } from '../../components/render-errors.js';
import { notAcceptedText } from '../../guard-seam/exit-refusal-text.js';
import type {
  BeforeModelVerdict,
  ExitVerdict,
  Guard,
  GuardContribution,
  GuardHost,
  GuardTick,
  ToolCallOutcome,
  ToolCallReplacement,
} from '../../guard-seam/guard-family.js';
import type { CompiledTree } from '../../renderer/compile.js';
import type { CompiledTool } from '../../renderer/compiled-context.js';
import type { RunReport } from '../../runtime/session-options.js';
import type { TickResult } from '../../state/tick-result.js';

export const OUTPUT_FAMILY = 'output';
export const FINAL_ANSWER_TOOL = 'final_answer';
/**
 * The result of a final answer the run completed with. One that is refused reads
 * `Not accepted: <reasons>` instead (guard-seam/exit-refusal-text.ts): it is never stored or
 * streamed before its exit is judged.
 */
export const FINAL_ANSWER_ACCEPTED = 'Final answer accepted.';

/** What `<Output>` declares. */
export interface OutputConfig {
  schema: ZodType;
  description?: string;
  maxBlocks: number;
}

const PROCEED: BeforeModelVerdict = { kind: 'proceed' };

/**
 * `<Output schema>` on the guard seam: a `final_answer` tool whose input is the schema (so any
 * provider can answer in structure, no native structured-output mode needed). A valid call is
 * an attempt to finish, judged by every guard like a reply without tool calls; an invalid one
 * is a tool error with the zod issues, bounded like a gate's refusals; finishing with plain text
 * while `<Output>` is mounted is refused. The accepted value is `RunResult.output`.
 */
export class OutputGuard implements Guard {
  readonly name = OUTPUT_FAMILY;
  readonly reservedTools = [FINAL_ANSWER_TOOL];
  /** A valid final answer's result is written once its exit is judged: accepted or not. */
  readonly finishTools = [FINAL_ANSWER_TOOL];
  /** This tick's valid final answer, until the exit is judged (cleared each tick). */
  private candidate: { value: unknown } | undefined;
  /** The answer the run completed with. */
  private accepted: { value: unknown } | undefined;
  /** Invalid final answers and plain-text finishes refused, since the last accepted one. */
  private blocks = 0;
  private lastErrors = '';
  private toolCache:
    | { schema: ZodType; description: string | undefined; tool: CompiledTool }
    | undefined;

  constructor(private readonly host: GuardHost) {}

  private config(): OutputConfig | undefined {
    const declared = this.host.registry.ofFamily(OUTPUT_FAMILY);
    if (declared.length > 1) {
      throw new InvalidElementError(
        'More than one <Output> is rendered; a run ends in one answer. Render a single <Output schema={…} />.',
      );
    }
    return declared[0]?.config as OutputConfig | undefined;
  }

  runStart(): void {
    this.accepted = undefined;
    this.blocks = 0;
  }

  /** Engaged while `<Output>` is rendered, or an answer or a refusal of it is still counted. */
  engaged(): boolean {
    return this.config() !== undefined || this.candidate !== undefined || this.blocks > 0;
  }

  render(tree: CompiledTree): GuardContribution | undefined {
    const config = this.config();
    if (config === undefined) return undefined;
    if (tree.tools.some((t) => t.name === FINAL_ANSWER_TOOL)) {
      throw new InvalidElementError(
        `A <Tool> is named "${FINAL_ANSWER_TOOL}", which <Output> reserves for the final answer. Rename the tool.`,
      );
    }
    return { tools: [this.tool(config)] };
  }

  beforeModelCall(): BeforeModelVerdict {
    this.candidate = undefined;
    return PROCEED;
  }

  afterToolCall(_tick: GuardTick, outcome: ToolCallOutcome): ToolCallReplacement | undefined {
    const config = this.config();
    if (outcome.call.toolName !== FINAL_ANSWER_TOOL || config === undefined) return undefined;
    if (outcome.executed && !outcome.result.isError) {
      this.candidate = { value: outcome.input };
    } else if (outcome.refusedBy === undefined) {
      // Invalid arguments: the refusal counts toward the bound, and reads as one.
      this.blocks++;
      this.lastErrors = String(outcome.result.output);
      return {
        output: notAcceptedText([
          `<Output>: the answer does not match the schema (refusal ${this.blocks} of ${config.maxBlocks}): ${this.lastErrors}`,
        ]),
      };
    }
    return undefined;
  }

  /** A valid final answer this tick asks to finish, like a reply without tool calls. */
  finishRequested(_tick: GuardTick, _result: TickResult): boolean {
    return this.candidate !== undefined;
  }

  tickEnd(): BeforeModelVerdict {
    const config = this.config();
    if (config === undefined || this.blocks <= config.maxBlocks || this.candidate !== undefined) {
      return PROCEED;
    }
    return {
      kind: 'end',
      status: 'blocked',
      reason: `<Output>: ${FINAL_ANSWER_TOOL} was refused ${this.blocks} times (maxBlocks ${config.maxBlocks}); the last time: ${this.lastErrors}`,
    };
  }

  exitAttempt(): ExitVerdict {
    const config = this.config();
    if (config === undefined) return { kind: 'allow' };
    if (this.candidate !== undefined) {
      this.accepted = this.candidate;
      return { kind: 'allow' };
    }
    this.blocks++;
    const reason = `<Output>: the run ends in a structured answer: call ${FINAL_ANSWER_TOOL} with it (plain text is not the answer).`;
    if (this.blocks > config.maxBlocks) {
      return {
        kind: 'end',
        names: [OUTPUT_FAMILY],
        reasons: [reason],
        reason: `${reason} The model finished without it ${this.blocks} times (maxBlocks ${config.maxBlocks}).`,
      };
    }
    return {
      kind: 'refuse',
      names: [OUTPUT_FAMILY],
      reasons: [reason],
      notice: `EXIT REFUSED: ${reason}`,
    };
  }

  report(): RunReport {
    // Only a completed run has an answer: another guard may have refused this exit.
    if (this.accepted === undefined || this.host.state().status !== 'completed') return {};
    return { output: this.accepted.value };
  }

  /** Made again only when the schema or description changes (the request stays cacheable). */
  private tool(config: OutputConfig): CompiledTool {
    const cached = this.toolCache;
    if (cached?.schema === config.schema && cached.description === config.description) {
      return cached.tool;
    }
    const tool: CompiledTool = {
      name: FINAL_ANSWER_TOOL,
      description:
        config.description ??
        'Give your final answer in this structure. Calling it ends the run (when nothing else is left to do); call it once, when you are done.',
      inputSchema: config.schema,
      execute: () => FINAL_ANSWER_ACCEPTED,
      source: 'runtime',
    };
    this.toolCache = { schema: config.schema, description: config.description, tool };
    return tool;
  }
}
