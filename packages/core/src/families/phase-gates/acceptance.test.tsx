/**
 * Acceptance tests for issues 9 and 14, written from the issues' words against the public API:
 * `evaluatePhaseGates` called directly, and scripted-model runs of agents whose tools have names
 * unlike any the implementation has seen (`survey`, `hunt`, `inspect`, `rewrite`, `prove`, and a
 * shell tool called `terminal`), so that hard-coded tool names would show.
 */
import { renderContext, type ScriptedTurn, scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  evaluatePhaseGates,
  isSmallModel,
  type PhaseStep,
  phasePrompt,
} from '../../entries/guards.js';
import {
  type AgateEvent,
  InvalidElementError,
  PhaseGates,
  type PhaseGatesProps,
  run,
  System,
  Timeline,
  Tool,
  User,
} from '../../index.js';

const TASK = 'The invoice total ignores discounts in billing/invoice.py.';

function Agent(props: Partial<PhaseGatesProps> & { verifyResult?: unknown }) {
  const { verifyResult, ...options } = props;
  return (
    <>
      <System>You fix bugs.</System>
      <User>{TASK}</User>
      <Timeline />
      <Tool name="survey" input={z.object({})} category="discovery" execute={() => ['billing']} />
      <Tool
        name="hunt"
        input={z.object({ pattern: z.string() })}
        category="search"
        execute={() => ['billing/invoice.py:12']}
      />
      <Tool
        name="inspect"
        input={z.object({ path: z.string() })}
        category="read"
        execute={() => 'def total(): ...'}
      />
      <Tool
        name="rewrite"
        input={z.object({ path: z.string(), text: z.string() })}
        category="patch"
        execute={() => 'written'}
      />
      <Tool
        name="prove"
        input={z.object({})}
        category="verify"
        execute={() => verifyResult ?? { exitCode: 0, output: '4 passed' }}
      />
      <PhaseGates mode="warn" {...options} />
    </>
  );
}

const call = (toolName: string, input: Record<string, unknown> = {}): ScriptedTurn => ({
  toolCalls: [{ toolName, input }],
});
const survey = call('survey');
const hunt = call('hunt', { pattern: 'discount' });
const inspect = call('inspect', { path: 'billing/invoice.py' });
const rewrite = call('rewrite', { path: 'billing/invoice.py', text: 'x' });
const prove = call('prove');

/** The phase-gate text in each request (ephemeral content is the last user message). */
function gateTexts(model: ReturnType<typeof scriptedModel>): string[] {
  return model.calls.map((c) => {
    const last = c.prompt.at(-1);
    if (last?.role !== 'user' || typeof last.content === 'string') return '';
    const text = last.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    return /WARNING|CRITICAL|EXIT REFUSED/.test(text) ? text : '';
  });
}

async function runAgent(
  turns: ScriptedTurn[],
  props: Partial<PhaseGatesProps> & { verifyResult?: unknown } = {},
  maxTicks = 40,
) {
  const events: AgateEvent[] = [];
  const model = scriptedModel(turns);
  const result = await run(<Agent {...props} />, {
    model,
    maxTicks,
    onEvent: (e) => events.push(e),
  });
  const warnings = events.flatMap((e) => (e.type === 'phase:warning' ? [e] : []));
  return { result, model, events, warnings, texts: gateTexts(model) };
}

const step = (
  tick: number,
  toolName: string,
  category: PhaseStep['category'],
  input: unknown = {},
  result?: PhaseStep['result'],
): PhaseStep => ({ tick, toolName, category, input, ...(result ? { result } : {}) });

describe('evaluatePhaseGates (issue 9 rules)', () => {
  it('returns exactly { understanding, change, verification, readiness, evidence }', () => {
    const status = evaluatePhaseGates([
      step(1, 'hunt', 'search', { pattern: 'x' }),
      step(2, 'inspect', 'read', { path: 'a.py' }),
      step(3, 'inspect', 'read', { path: 'a.py' }),
      step(4, 'inspect', 'read', { path: 'b.py' }),
      step(5, 'rewrite', 'patch', { path: 'a.py' }),
      step(6, 'prove', 'verify'),
    ]);
    expect(status).toEqual({
      understanding: true,
      change: true,
      verification: true,
      readiness: true,
      evidence: {
        filesRead: 2,
        searchUsed: true,
        patchesProposed: 1,
        verifyUsed: true,
        noProgressYet: false,
        stepsTaken: 6,
      },
    });
  });

  it('a read without a path counts once per call', () => {
    const status = evaluatePhaseGates([
      step(1, 'inspect', 'read', {}),
      step(2, 'inspect', 'read', {}),
      step(3, 'inspect', 'read', { path: 'a.py' }),
    ]);
    expect(status.evidence.filesRead).toBe(3);
  });

  it('understanding needs a read and (a search or a patch)', () => {
    expect(evaluatePhaseGates([step(1, 'inspect', 'read', { path: 'a' })]).understanding).toBe(
      false,
    );
    expect(evaluatePhaseGates([step(1, 'hunt', 'search', { pattern: 'a' })]).understanding).toBe(
      false,
    );
    expect(
      evaluatePhaseGates([
        step(1, 'inspect', 'read', { path: 'a' }),
        step(2, 'hunt', 'search', { pattern: 'a' }),
      ]).understanding,
    ).toBe(true);
    expect(
      evaluatePhaseGates([
        step(1, 'inspect', 'read', { path: 'a' }),
        step(2, 'rewrite', 'patch', { path: 'a' }),
      ]).understanding,
    ).toBe(true);
  });

  it('a test run before the change verifies nothing; verification "any" restores the seed rule', () => {
    const steps = [
      step(1, 'inspect', 'read', { path: 'a.py' }),
      step(2, 'prove', 'verify'),
      step(3, 'rewrite', 'patch', { path: 'a.py' }),
    ];
    const strict = evaluatePhaseGates(steps);
    expect(strict).toMatchObject({ change: true, verification: false, readiness: false });
    const loose = evaluatePhaseGates(steps, { verification: 'any' });
    expect(loose).toMatchObject({ change: true, verification: true, readiness: true });
  });

  it('noProgressYet: at least two calls, none of them progress', () => {
    expect(evaluatePhaseGates([step(1, 'survey', 'discovery')]).evidence.noProgressYet).toBe(false);
    expect(
      evaluatePhaseGates([step(1, 'survey', 'discovery'), step(2, 'survey', 'discovery')]).evidence
        .noProgressYet,
    ).toBe(true);
    expect(
      evaluatePhaseGates([step(1, 'survey', 'discovery'), step(2, 'misc', 'other')]).evidence
        .noProgressYet,
    ).toBe(true);
    expect(
      evaluatePhaseGates([step(1, 'survey', 'discovery'), step(2, 'hunt', 'search', {})]).evidence
        .noProgressYet,
    ).toBe(false);
  });

  it("a verification that did not run does not count; verification 'passed' needs exit code 0", () => {
    const base = [
      step(1, 'inspect', 'read', { path: 'a.py' }),
      step(2, 'rewrite', 'patch', { path: 'a.py' }),
    ];
    const notRun = evaluatePhaseGates([
      ...base,
      step(3, 'prove', 'verify', {}, { exitCode: 127, output: 'sh: 1: pytest: not found' }),
    ]);
    expect(notRun.verification).toBe(false);
    const failing = [...base, step(3, 'prove', 'verify', {}, { exitCode: 1, output: '1 failed' })];
    expect(evaluatePhaseGates(failing).verification).toBe(true);
    expect(evaluatePhaseGates(failing, { verification: 'passed' }).verification).toBe(false);
  });

  it("category 'shell' and category arrays are classified per call", () => {
    const status = evaluatePhaseGates([
      step(1, 'terminal', 'shell', { command: 'rg -n discount billing && cat billing/invoice.py' }),
      step(2, 'terminal', 'shell', { command: "sed -i 's/total/total - d/' billing/invoice.py" }),
      step(3, 'edit_and_test', ['patch', 'verify'], { path: 'billing/invoice.py' }),
    ]);
    expect(status).toMatchObject({ understanding: true, change: true, verification: true });
    expect(status.evidence).toMatchObject({ searchUsed: true, filesRead: 1, patchesProposed: 2 });
  });
});

describe('<PhaseGates> with tools of other names', () => {
  it('an unknown category is an error at render', () => {
    expect(() =>
      renderContext(
        <Tool
          name="inspect"
          input={z.object({})}
          category={'reading' as 'read'}
          execute={() => ''}
        />,
      ),
    ).toThrow(InvalidElementError);
    expect(() =>
      renderContext(
        <Tool
          name="inspect"
          input={z.object({})}
          category={'reading' as 'read'}
          execute={() => ''}
        />,
      ),
    ).toThrow(/reading/);
  });

  it('the no-progress warning begins with WARNING and names the real tools, once', async () => {
    const { texts, warnings } = await runAgent([survey, survey, survey, 'done'], {
      warnAfter: 50,
    });
    const first = texts.find((x) => x.length > 0) ?? '';
    expect(first).toMatch(/^WARNING/);
    for (const name of ['hunt', 'inspect', 'rewrite', 'prove']) expect(first).toContain(name);
    expect(first).not.toMatch(/\b(?:whereis|peek|put|check|read_file|run_tests|bash)\b/);
    expect(warnings.filter((w) => w.kind === 'no-progress')).toHaveLength(1);
  });

  it('escalation: CRITICAL, once, discovery tools not to call again, hint from the task text', async () => {
    const seenTasks: string[] = [];
    const hint = (taskText: string) => {
      seenTasks.push(taskText);
      return 'hunt({"pattern":"discount"})';
    };
    const { texts, warnings } = await runAgent([...Array(9).fill(survey), 'done'], {
      warnAfter: 50,
      maxNoProgressSteps: 5,
      hint,
    });
    const critical = texts.filter((x) => x.startsWith('CRITICAL'));
    expect(critical).toHaveLength(1);
    expect(critical[0]).toContain('stuck');
    expect(critical[0]).toContain('survey');
    expect(critical[0]).toContain('hunt({"pattern":"discount"})');
    for (const name of ['hunt', 'inspect', 'rewrite', 'prove']) expect(critical[0]).toContain(name);
    expect(seenTasks.some((t) => t.includes(TASK))).toBe(true);
    expect(warnings.filter((w) => w.kind === 'escalation')).toHaveLength(1);
  });

  it('every warning begins with WARNING or CRITICAL; at most 4 over any 10 steps', async () => {
    const turns = [
      hunt,
      inspect,
      ...Array.from({ length: 12 }, () => [rewrite, survey]).flat(),
      'done',
    ];
    const { warnings } = await runAgent(turns, { warnAfter: 1, warnEvery: 1, stallAfter: 1 });
    expect(warnings.length).toBeGreaterThan(4);
    for (const w of warnings) expect(w.text).toMatch(/^(?:WARNING|CRITICAL)/);
    const ticks = warnings.map((w) => w.tick);
    for (let start = 1; start <= 40; start++)
      expect(ticks.filter((x) => x >= start && x < start + 10).length).toBeLessThanOrEqual(4);
  });

  it('warn mode never blocks: an agent that finishes at once completes', async () => {
    const { result, events } = await runAgent([survey, 'All fixed.']);
    expect(result.status).toBe('completed');
    expect(events.some((e) => e.type === 'exit:blocked')).toBe(false);
    expect(result.phase?.readiness).toBe(false);
  });

  it('block mode: the refusal lists the missing phases with their tools; then blocked, never completed', async () => {
    const { result, texts, events } = await runAgent([hunt, ...Array(8).fill('All fixed.')], {
      mode: 'block',
      maxBlocks: 2,
    });
    const refusal = texts.find((x) => x.includes('EXIT REFUSED')) ?? '';
    expect(refusal).toContain('understanding');
    expect(refusal).toContain('inspect');
    expect(refusal).toContain('change');
    expect(refusal).toContain('rewrite');
    expect(refusal).toContain('verification');
    expect(refusal).toContain('prove');
    expect(result.status).toBe('blocked');
    expect(
      events.some((e) => e.type === 'run:end' && 'status' in e && e.status === 'completed'),
    ).toBe(false);
    expect(events.filter((e) => e.type === 'exit:blocked')).toHaveLength(3);
  });

  it('block mode: a test before the change does not let the agent finish; a test after it does', async () => {
    const { result, texts } = await runAgent(
      [hunt, inspect, prove, rewrite, 'Done.', prove, 'Done.'],
      { mode: 'block' },
    );
    const refusal = texts.find((x) => x.includes('EXIT REFUSED')) ?? '';
    expect(refusal).toContain('verification');
    expect(refusal).toContain('prove');
    expect(refusal).not.toContain('- change');
    expect(result.status).toBe('completed');
    expect(result.phase?.readiness).toBe(true);
  });

  it('block mode: a verification that was not found does not count, and the refusal says so', async () => {
    const { result, texts } = await runAgent([hunt, inspect, rewrite, prove, 'Done.', 'Done.'], {
      mode: 'block',
      maxBlocks: 1,
      verifyResult: { exitCode: 127, output: 'bash: line 1: pytest: command not found' },
    });
    const refusal = texts.find((x) => x.includes('EXIT REFUSED')) ?? '';
    expect(refusal).toContain('not found');
    expect(refusal).toContain('prove');
    expect(result.status).toBe('blocked');
  });
});

/** Replies like a shell would, from a table of command prefixes; no real process. */
function Terminal(props: { replies: Array<[RegExp, { exitCode: number; output: string }]> }) {
  return (
    <Tool
      name="terminal"
      input={z.object({ cmd: z.string() })}
      category="shell"
      shellCommand={(input) => input.cmd}
      execute={({ cmd }) =>
        props.replies.find(([pattern]) => pattern.test(cmd))?.[1] ?? { exitCode: 0, output: '' }
      }
    />
  );
}

describe('a shell agent named "terminal" with a scripted shell', () => {
  const sh = (cmd: string): ScriptedTurn => call('terminal', { cmd });

  async function shellRun(
    turns: ScriptedTurn[],
    replies: Array<[RegExp, { exitCode: number; output: string }]> = [],
    props: Partial<PhaseGatesProps> = {},
  ) {
    const model = scriptedModel(turns);
    const events: AgateEvent[] = [];
    const result = await run(
      <>
        <User>Fix the discount bug in billing/invoice.py.</User>
        <Timeline />
        <Terminal replies={replies} />
        <PhaseGates mode="block" maxBlocks={1} {...props} />
      </>,
      { model, onEvent: (e) => events.push(e) },
    );
    return { result, texts: gateTexts(model), events };
  }

  it('writes a reproduction, fixes, tests, removes the scratch script: completed', async () => {
    const { result } = await shellRun([
      sh('rg -n "discount" billing'),
      sh("sed -n '1,60p' billing/invoice.py"),
      sh(
        "cat > repro_discount.py << 'EOF'\nfrom billing.invoice import total\nassert total(10, 2) == 8\nEOF",
      ),
      sh('python repro_discount.py'),
      sh("perl -0pi -e 's/return amount/return amount - discount/' billing/invoice.py"),
      sh('python repro_discount.py && python -m pytest -q tests/test_invoice.py 2>&1 | tail -5'),
      sh('rm -f repro_discount.py'),
      'Fixed.',
    ]);
    expect(result.status).toBe('completed');
    expect(result.phase?.readiness).toBe(true);
  });

  it('a last sed -i after the tests is refused, naming the file and the terminal tool', async () => {
    const { result, texts } = await shellRun([
      sh('grep -rn "discount" billing'),
      sh('cat billing/invoice.py'),
      sh("sed -i 's/return amount/return amount - discount/' billing/invoice.py"),
      sh('python -m pytest -q'),
      sh("sed -i '/print(\"DEBUG/d' billing/invoice.py"),
      'Fixed.',
      'Fixed.',
    ]);
    const refusal = texts.find((x) => x.includes('EXIT REFUSED')) ?? '';
    expect(refusal).toContain('billing/invoice.py');
    expect(refusal).toContain('terminal');
    expect(refusal).not.toMatch(/\bbash\b/);
    expect(result.status).toBe('blocked');
  });

  it('tests that never ran (command not found) are refused, and the message says the command was not found', async () => {
    const { result, texts } = await shellRun(
      [
        sh('grep -rn "discount" billing'),
        sh('cat billing/invoice.py'),
        sh("sed -i 's/return amount/return amount - discount/' billing/invoice.py"),
        sh('mvn -q test'),
        'Fixed.',
        'Fixed.',
      ],
      [[/^mvn/, { exitCode: 127, output: 'bash: line 1: mvn: command not found' }]],
    );
    const refusal = texts.find((x) => x.includes('EXIT REFUSED')) ?? '';
    expect(refusal).toContain('not found');
    expect(result.status).toBe('blocked');
  });

  it("verification 'passed': failing tests ran, but the run may not finish until they pass", async () => {
    const turns = [
      sh('grep -rn "discount" billing'),
      sh('cat billing/invoice.py'),
      sh("sed -i 's/return amount/return amount - discount/' billing/invoice.py"),
      sh('go test ./...'),
      'Fixed.',
      'Fixed.',
    ];
    const failing: Array<[RegExp, { exitCode: number; output: string }]> = [
      [/^go test/, { exitCode: 1, output: '--- FAIL: TestTotal' }],
    ];
    expect((await shellRun(turns, failing)).result.status).toBe('completed');
    const strict = await shellRun(turns, failing, { verification: 'passed' });
    expect(strict.result.status).toBe('blocked');
    expect(strict.texts.find((x) => x.includes('EXIT REFUSED'))).toContain('not passed');
  });

  it('the stall warning comes after stallAfter steps without a change or a verification, naming the terminal', async () => {
    const { events } = await shellRun(
      [
        sh('cat billing/invoice.py'),
        sh("sed -i 's/a/b/' billing/invoice.py"),
        sh('cat billing/tax.py'),
        sh('ls billing'),
        sh('git log -3'),
        sh('nl -ba billing/invoice.py | head'),
        sh('python -m pytest -q'),
        'Fixed.',
      ],
      [],
      { stallAfter: 3, warnAfter: 50 },
    );
    const stall = events.flatMap((e) =>
      e.type === 'phase:warning' && e.kind === 'stall' ? [e] : [],
    );
    expect(stall).toHaveLength(1);
    expect(stall[0]!.tick).toBe(5);
    expect(stall[0]!.text).toMatch(/^WARNING/);
    expect(stall[0]!.text).toContain('terminal');
  });
});

describe('a shell tool that is really a text editor', () => {
  it('is offered for reading and changing, never for running tests, in warnings and refusals', async () => {
    const edit = (input: Record<string, unknown>): ScriptedTurn => call('editor', input);
    const replace = {
      command: 'str_replace',
      path: 'billing/invoice.py',
      old_str: 'a',
      new_str: 'b',
    };
    const model = scriptedModel([
      call('terminal', { cmd: 'grep -rn discount billing' }),
      edit({ command: 'view', path: 'billing/invoice.py' }),
      edit(replace),
      ...Array(4).fill(edit({ command: 'view', path: 'billing/tax.py' })),
      'Fixed.',
      'Fixed.',
    ]);
    const events: AgateEvent[] = [];
    const result = await run(
      <>
        <User>Fix the discount bug.</User>
        <Timeline />
        <Terminal replies={[]} />
        <Tool
          name="editor"
          input={z.object({
            command: z.string(),
            path: z.string(),
            old_str: z.string().optional(),
            new_str: z.string().optional(),
          })}
          category="shell"
          execute={() => 'ok'}
        />
        <PhaseGates mode="block" maxBlocks={1} stallAfter={3} warnAfter={50} />
      </>,
      { model, onEvent: (e) => events.push(e) },
    );
    const stall = events.flatMap((e) =>
      e.type === 'phase:warning' && e.kind === 'stall' ? [e] : [],
    );
    expect(stall).toHaveLength(1);
    expect(stall[0]!.text).toContain('terminal (');
    expect(stall[0]!.text).not.toContain('editor (');
    const refusal = gateTexts(model).find((x) => x.includes('EXIT REFUSED')) ?? '';
    expect(refusal).toContain('billing/invoice.py');
    expect(refusal).toContain('terminal (the tests');
    expect(refusal).not.toContain('editor (');
    expect(result.status).toBe('blocked');
  });
});

describe('phasePrompt by model family and size', () => {
  const tools = {
    hunt: 'search',
    inspect: 'read',
    rewrite: 'patch',
    prove: 'verify',
    terminal: 'shell',
  } as const;

  it('size markers decide small vs large, across spellings', () => {
    for (const id of [
      'deepseek-coder-6.7b-instruct',
      'Qwen/Qwen2.5-Coder-14B-Instruct',
      'codegemma:7b',
      'llama3.1:8b',
    ])
      expect(isSmallModel(id), id).toBe(true);
    for (const id of [
      'meta-llama/Llama-3.3-70B-Instruct',
      'codellama:34b',
      'qwen2.5-coder:32b',
      'claude-opus-4',
      'gpt-4.1',
    ])
      expect(isSmallModel(id), id).toBe(false);
  });

  it('both prompts list the real tools; the small one is shorter', () => {
    const small = phasePrompt('Qwen/Qwen2.5-Coder-7B-Instruct', tools);
    const large = phasePrompt('meta-llama/Llama-3.3-70B-Instruct', tools);
    expect(small.length).toBeLessThan(large.length);
    for (const text of [small, large])
      for (const name of ['hunt', 'inspect', 'rewrite', 'prove', 'terminal'])
        expect(text).toContain(name);
  });
});
