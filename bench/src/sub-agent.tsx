import { run, SubAgent, System, Timeline, Tool, User } from '@agate/core';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
} from '@ai-sdk/provider';
import { z } from 'zod';
import { cpuMs, median, roundOrder, type Summary, summarize } from './stats.js';

/** A sub-agent call whose child takes one tick costs at most this much more than a plain tool call. */
export const SUB_AGENT_EXTRA_TARGET_MS = 2;

export interface SubAgentCostResult {
  reps: number;
  runsPerRep: number;
  /** CPU ms of a whole run (two parent ticks, one call), plain tool. Per-rep medians. */
  plain: Summary;
  /** The same with the call going to a sub-agent whose child answers in one tick. */
  subAgent: Summary;
  /** Sub-agent − plain, per repetition (medians of the runs). */
  extra: Summary;
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
};

/**
 * Replies from the request alone, keeping nothing per call: the parent calls `work`, then
 * answers once the result is in; a child (its system text says so) answers at once.
 */
function model(): LanguageModelV4 {
  const reply = (options: LanguageModelV4CallOptions): LanguageModelV4Content[] => {
    const first = options.prompt[0];
    const child = first?.role === 'system' && first.content.startsWith('Child');
    const last = options.prompt.at(-1);
    if (child || last?.role === 'tool') return [{ type: 'text', text: 'done' }];
    return [{ type: 'tool-call', toolCallId: 'c1', toolName: 'work', input: '{"task":"t"}' }];
  };
  return {
    specificationVersion: 'v4',
    provider: 'agate-bench',
    modelId: 'sub-agent',
    supportedUrls: {},
    async doGenerate(options) {
      const content = reply(options);
      return {
        content,
        finishReason: {
          unified: content[0]?.type === 'text' ? 'stop' : 'tool-calls',
          raw: undefined,
        },
        usage: USAGE,
        warnings: [],
      };
    },
    async doStream() {
      throw new Error('not used: streaming is off');
    },
  };
}

const Task = z.object({ task: z.string() });

function Child() {
  return (
    <>
      <System>Child agent.</System>
      <User>Do it.</User>
      <Timeline />
    </>
  );
}

function Parent(props: { subAgent: boolean }) {
  return (
    <>
      <System>Parent agent.</System>
      <User>Get the work done.</User>
      <Timeline />
      {props.subAgent ? (
        <SubAgent name="work" description="Does the work" input={Task} agent={() => <Child />} />
      ) : (
        <Tool name="work" description="Does the work" input={Task} execute={() => 'done'} />
      )}
    </>
  );
}

async function once(subAgent: boolean, llm: LanguageModelV4): Promise<number> {
  const start = cpuMs();
  const result = await run(<Parent subAgent={subAgent} />, { model: llm, streaming: false });
  const spent = cpuMs() - start;
  if (result.status !== 'completed') throw new Error(`sub-agent bench run ended ${result.status}`);
  return spent;
}

/**
 * A run with one call of a plain tool against the same run with the call going to a sub-agent
 * whose child answers in one tick, alternating, in CPU time: the difference is what the
 * sub-agent call costs beyond a tool call (a child session, its render and its model call).
 */
export async function measureSubAgentCost(
  reps: number,
  runsPerRep: number,
  log: (line: string) => void,
): Promise<SubAgentCostResult> {
  const llm = model();
  // A sub-agent's path (a child session, its own render) is cold longer than a tool call's:
  // after 20 pairs it still cost about twice what it does after a few hundred.
  for (let i = 0; i < 200; i++) {
    await once(false, llm);
    await once(true, llm);
  }
  // Rounds of 10 pairs, round-robin over the repetitions (see tick-overhead.ts): a burst of
  // machine noise, or a process still warming, touches a round of every repetition instead of
  // all the runs of one. Run one repetition after another, the first read the most (+1.85 and
  // +1.49 ms, then +0.67 to +1.0; in another run +1.29, then +0.32 to +0.51).
  const perRound = Math.min(10, runsPerRep);
  const rounds = Math.ceil(runsPerRep / perRound);
  const p: number[][] = Array.from({ length: reps }, () => []);
  const s: number[][] = Array.from({ length: reps }, () => []);
  for (let round = 0; round < rounds; round++) {
    for (const rep of roundOrder(reps, round)) {
      for (let i = 0; i < perRound; i++) {
        if ((i + rep + round) % 2 === 0) {
          p[rep]!.push(await once(false, llm));
          s[rep]!.push(await once(true, llm));
        } else {
          s[rep]!.push(await once(true, llm));
          p[rep]!.push(await once(false, llm));
        }
      }
    }
  }
  const plain = p.map((runs) => median(runs));
  const sub = s.map((runs) => median(runs));
  const extra = sub.map((value, rep) => value - plain[rep]!);
  for (const [rep, value] of extra.entries())
    log(`  rep ${rep + 1}/${reps}: +${value.toFixed(3)} ms`);
  return {
    reps,
    runsPerRep: p[0]?.length ?? 0,
    plain: summarize(plain),
    subAgent: summarize(sub),
    extra: summarize(extra),
  };
}
