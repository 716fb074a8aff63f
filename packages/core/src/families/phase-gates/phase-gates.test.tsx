import { renderContext, type ScriptedTurn, scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isSmallModel, type PhaseStatus, phasePrompt } from '../../entries/guards.js';
import {
  type AgateEvent,
  createSession,
  InvalidElementError,
  PhaseGates,
  type PhaseGatesProps,
  PhasePrompt,
  run,
  System,
  Timeline,
  Tool,
  User,
  usePhaseGates,
} from '../../index.js';

const seen: PhaseStatus[] = [];
function StatusProbe() {
  seen.push(usePhaseGates());
  return null;
}

/** A coding agent with per-tool categories; tool names unlike the seed's, to catch hard-coding. */
function Agent(props: Partial<PhaseGatesProps> & { prompt?: string }) {
  const { prompt, ...options } = props;
  return (
    <>
      <System>You fix bugs.</System>
      {prompt ? <PhasePrompt model={prompt} /> : null}
      <User>Fix the tracing bug in spans.py.</User>
      <Timeline />
      <Tool name="ls_repo" input={z.object({})} category="discovery" execute={() => ['spans.py']} />
      <Tool
        name="whereis"
        input={z.object({ q: z.string() })}
        category="search"
        execute={() => ['spans.py']}
      />
      <Tool
        name="peek"
        input={z.object({ path: z.string() })}
        category="read"
        execute={() => 'code'}
      />
      <Tool
        name="put"
        input={z.object({ path: z.string() })}
        category="patch"
        execute={() => 'ok'}
      />
      <Tool
        name="check"
        input={z.object({})}
        category="verify"
        execute={() => ({ exitCode: 0, output: 'ok' })}
      />
      <PhaseGates mode="warn" {...options} />
      <StatusProbe />
    </>
  );
}

const t = (toolName: string, input: Record<string, unknown> = {}): ScriptedTurn => ({
  toolCalls: [{ toolName, input }],
});
const look = t('ls_repo');
const find = t('whereis', { q: 'span' });
const read = t('peek', { path: 'spans.py' });
const put = t('put', { path: 'spans.py' });
const check = t('check');

/** The phase-gate text each model call was sent (ephemeral content comes last). */
function gateTexts(model: ReturnType<typeof scriptedModel>): string[] {
  return model.calls.map((c) => {
    const last = c.prompt.at(-1);
    if (last?.role !== 'user' || typeof last.content === 'string') return '';
    const text = last.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    return /WARNING|CRITICAL|EXIT REFUSED/.test(text) ? text : '';
  });
}

async function runWith(turns: ScriptedTurn[], props: Partial<PhaseGatesProps> = {}, maxTicks = 40) {
  const events: AgateEvent[] = [];
  const model = scriptedModel(turns);
  const result = await run(<Agent {...props} />, {
    model,
    maxTicks,
    onEvent: (e) => events.push(e),
  });
  return {
    result,
    model,
    events,
    texts: gateTexts(model),
    warnings: events.filter((e) => e.type === 'phase:warning'),
  };
}

describe('<PhaseGates> warnings', () => {
  it('no progress: once, with the real search, read, patch and verify tools', async () => {
    const { texts, warnings } = await runWith([look, look, look, look, 'done'], { warnAfter: 50 });
    expect(texts[2]).toContain('WARNING: You have not made progress yet');
    for (const name of ['whereis', 'peek', 'put', 'check']) expect(texts[2]).toContain(name);
    expect(texts[2]).not.toMatch(/rg_search|read_file|propose_patch|run_tests/);
    expect(texts.filter((x) => x.includes('not made progress'))).toHaveLength(1);
    expect(warnings.map((w) => w.type === 'phase:warning' && w.kind)).toEqual(['no-progress']);
  });

  it('escalates once at maxNoProgressSteps with CRITICAL, the progress tools, the discovery ones not to call, and the hint', async () => {
    const hint = (task: string) =>
      task.includes('tracing') ? 'whereis({"q":"trace|span"})' : undefined;
    const { texts } = await runWith([...Array(8).fill(look), 'done'], {
      warnAfter: 50,
      hint,
      maxNoProgressSteps: 4,
    });
    const critical = texts.filter((x) => x.startsWith('CRITICAL'));
    expect(critical).toHaveLength(1);
    expect(texts[4]).toMatch(/^CRITICAL \(step 4\): You are stuck/);
    expect(texts[4]).toContain('Suggested first action: whereis({"q":"trace|span"})');
    expect(texts[4]).toContain('DO NOT call discovery tools again (ls_repo)');
    expect(texts[4]).toContain('- verify: check');
  });

  it('from warnAfter: lists exactly what is missing, at most every warnEvery steps, each distinct text once', async () => {
    const { texts, warnings } = await runWith([
      find,
      read,
      read,
      read,
      read,
      read,
      read,
      put,
      read,
      read,
      read,
      read,
      'done',
    ]);
    const missing = warnings
      .filter((w) => w.type === 'phase:warning' && w.kind === 'missing')
      .map((w) => w.tick);
    expect(missing).toEqual([5, 8]);
    expect(texts[5]).toContain('WARNING (step 5): the task is not done yet. Still missing:');
    expect(texts[5]).toContain('- change: make the change the task asks for (with put)');
    expect(texts[5]).not.toContain('understanding');
    expect(texts[8]).toContain('- verification: nothing has verified your change to spans.py yet');
    expect(texts[8]).toContain('(with check)');
  });

  it('the stall warning after the first change names what to do next', async () => {
    const { warnings, texts } = await runWith(
      [find, read, put, check, put, read, read, read, read, read, read, 'done'],
      { warnAfter: 50 },
    );
    const stall = warnings.find((w) => w.type === 'phase:warning' && w.kind === 'stall');
    expect(stall?.tick).toBe(10);
    expect(texts[10]).toContain('5 steps in a row without a change or a verification');
    expect(texts[10]).toContain('Verify your change to spans.py now (with check)');
  });

  it('shows at most 4 warnings over any 10 steps', async () => {
    // Every change starts a new stall streak, so without the window a warning would come every other step.
    const turns = [find, read, ...Array.from({ length: 15 }, () => [put, read]).flat(), 'done'];
    const { warnings } = await runWith(turns, { warnAfter: 1, warnEvery: 1, stallAfter: 1 });
    const ticks = warnings.map((w) => w.tick);
    expect(ticks.length).toBeGreaterThan(4);
    for (const start of ticks)
      expect(ticks.filter((x) => x >= start && x < start + 10).length).toBeLessThanOrEqual(4);
  });

  it('warn mode never blocks: a premature finish completes, phases reported', async () => {
    const { result, events } = await runWith([look, 'done']);
    expect(result.status).toBe('completed');
    expect(events.some((e) => e.type === 'exit:blocked')).toBe(false);
    expect(result.phase).toMatchObject({ readiness: false, evidence: { stepsTaken: 2 } });
  });
});

describe('<PhaseGates mode="block">', () => {
  it('refuses to finish, listing the missing phases with the tools that satisfy each', async () => {
    const { texts, result } = await runWith([find, read, 'done', put, check, 'done'], {
      mode: 'block',
    });
    expect(texts[3]).toContain('EXIT REFUSED (phase gates, refusal 1 of 5)');
    expect(texts[3]).toContain('- change: make the change the task asks for (with put)');
    expect(texts[3]).toContain('- verification: after the change, run the checks (with check)');
    expect(result.status).toBe('completed');
    expect(result.phase?.readiness).toBe(true);
  });

  it('is bounded: maxBlocks refusals, then the run ends blocked, never completed', async () => {
    const { result, events } = await runWith(Array(10).fill('done'), {
      mode: 'block',
      maxBlocks: 3,
    });
    expect(result.status).toBe('blocked');
    expect(result.ticks).toBe(4);
    expect(result.reason).toContain('Phase gates refused 4 attempts to finish (maxBlocks 3)');
    const blocked = events.filter((e) => e.type === 'exit:blocked');
    expect(blocked.map((e) => e.type === 'exit:blocked' && e.final)).toEqual([
      false,
      false,
      false,
      true,
    ]);
    expect(blocked[0]?.type === 'exit:blocked' && blocked[0].gates).toEqual(['phase-gates']);
  });

  it('ends blocked (not max-ticks) when maxTicks comes while the phases are not met', async () => {
    const { result } = await runWith(Array(5).fill(look), { mode: 'block' }, 5);
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain(
      'phase gates are not satisfied (missing: understanding, change, verification)',
    );
  });

  it("verification 'passed': a failing test run is named as such", async () => {
    const model = scriptedModel([find, read, put, t('fail'), 'done', 'done']);
    const result = await run(
      <>
        <User>Fix it.</User>
        <Timeline />
        <Tool
          name="whereis"
          input={z.object({ q: z.string() })}
          category="search"
          execute={() => []}
        />
        <Tool
          name="peek"
          input={z.object({ path: z.string() })}
          category="read"
          execute={() => ''}
        />
        <Tool
          name="put"
          input={z.object({ path: z.string() })}
          category="patch"
          execute={() => 'ok'}
        />
        <Tool
          name="fail"
          input={z.object({})}
          category="verify"
          execute={() => ({ exitCode: 1, output: '1 failed' })}
        />
        <PhaseGates mode="block" verification="passed" />
      </>,
      { model },
    );
    expect(gateTexts(model)[5]).toContain('the checks have not passed yet');
    expect(result.phase?.verification).toBe(false);
  });
});

describe('categories per call in a live run', () => {
  it('shellCommand finds the command, a function category gives the parts', async () => {
    const model = scriptedModel([
      t('exec', { argv: ['grep', '-rn', 'span', 'src'] }),
      t('exec', { argv: ['cat', 'src/spans.py'] }),
      t('edit_and_check', { path: 'src/spans.py' }),
      'done',
    ]);
    const result = await run(
      <>
        <User>Fix it.</User>
        <Timeline />
        <Tool
          name="exec"
          input={z.object({ argv: z.array(z.string()) })}
          category="shell"
          shellCommand={(input) => input.argv.join(' ')}
          execute={() => ({ exitCode: 0, output: '' })}
        />
        <Tool
          name="edit_and_check"
          input={z.object({ path: z.string() })}
          category={() => ['patch', 'verify']}
          execute={() => ({ exitCode: 0, output: 'ok' })}
        />
        <PhaseGates mode="block" />
      </>,
      { model },
    );
    expect(result.status).toBe('completed');
    expect(result.phase).toMatchObject({
      readiness: true,
      evidence: { filesRead: 1, searchUsed: true, patchesProposed: 1, verifyUsed: true },
    });
  });
});

describe('phase status', () => {
  it('is an event whenever it changes, in state, in RunResult and from usePhaseGates()', async () => {
    seen.length = 0;
    const events: AgateEvent[] = [];
    const model = scriptedModel([find, read, put, check, 'done']);
    const session = createSession(<Agent />, { model, onEvent: (e) => events.push(e) });
    const result = await session.run();
    const changed = events.filter((e) => e.type === 'phase:changed');
    expect(changed.map((e) => e.type === 'phase:changed' && e.tick)).toEqual([1, 2, 3, 4, 5]);
    const last = changed.at(-1);
    expect(last?.type === 'phase:changed' && last.status.readiness).toBe(true);
    expect(session.state.guards.phase).toMatchObject(result.phase ?? {});
    expect(session.state.guards.phase?.readiness).toBe(true);
    expect(seen.at(-1)?.readiness).toBe(true);
    expect(seen[0]?.readiness).toBe(false);
  });

  it('restores from a snapshot taken before phase gates existed', async () => {
    const first = createSession(<Agent />, { model: scriptedModel([find, 'done']) });
    await first.run();
    const snapshot = first.snapshot();
    const { phase: _phase, ...guards } = snapshot.state.guards;
    const old = { ...snapshot, state: { ...snapshot.state, guards } } as typeof snapshot;
    const second = createSession(<Agent />, {
      model: scriptedModel([read, 'done']),
      snapshot: old,
    });
    expect(second.state.guards.phase).toBeNull();
    const result = await second.run();
    expect(result.status).toBe('completed');
    expect(result.phase?.evidence.filesRead).toBe(1);
  });
});

describe('render-time checks and the prompt', () => {
  it('block mode with no tool for a phase says so once (a warning event)', async () => {
    const events: AgateEvent[] = [];
    const model = scriptedModel(['done', 'done']);
    await run(
      <>
        <User>Fix it.</User>
        <Tool name="peek" input={z.object({})} category="read" execute={() => ''} />
        <PhaseGates mode="block" maxBlocks={1} />
      </>,
      { model, onEvent: (e) => events.push(e) },
    );
    const warnings = events.filter(
      (e) => e.type === 'warning' && e.code === 'phase-gates-unsatisfiable',
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.type === 'warning' && warnings[0].message).toContain('"patch" or "verify"');
  });

  it('an unknown mode or category is a clear error at render', () => {
    expect(() => renderContext(<PhaseGates mode={'strict' as 'warn'} />)).toThrow(
      InvalidElementError,
    );
    expect(() => renderContext(<PhaseGates mode="warn" warnEvery={0} />)).toThrow(/warnEvery/);
  });

  it('phasePrompt: minimal for small models, detailed for large ones, both with the real tools', () => {
    const tools = {
      ls_repo: 'discovery',
      whereis: 'search',
      peek: 'read',
      put: 'patch',
      check: 'verify',
      sh: 'shell',
    } as const;
    expect(isSmallModel('qwen2.5-coder:7b')).toBe(true);
    expect(isSmallModel('llama-3.1-70b-instruct')).toBe(false);
    expect(isSmallModel('qwen2.5-coder-32b')).toBe(false);
    expect(isSmallModel('gemma2:27b')).toBe(false);
    expect(isSmallModel('mixtral-8x7b')).toBe(false);
    expect(isSmallModel('qwen3-30b-a3b')).toBe(false);
    expect(isSmallModel('phi-3-mini')).toBe(true);
    expect(isSmallModel('claude-sonnet-4-5')).toBe(false);
    expect(isSmallModel('gpt-4o-mini')).toBe(true);
    const small = phasePrompt('qwen2.5-coder:7b', tools);
    const large = phasePrompt('gpt-4.1', tools);
    expect(small).toContain('CRITICAL RULE');
    expect(small.length).toBeLessThan(large.length);
    for (const text of [small, large])
      for (const name of ['whereis', 'peek', 'put', 'check', 'sh (']) expect(text).toContain(name);
    expect(large).toContain('Look around (not progress on its own): ls_repo');
  });

  it('<PhasePrompt model> renders the prompt with the tools this render offers', () => {
    const context = renderContext(<Agent prompt="mistral-7b" />);
    expect(context.system).toContain('CRITICAL RULE: Never finish until you have:');
    expect(context.system).toContain('2. Made the change (put)');
  });
});
