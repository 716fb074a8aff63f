import { scriptedModel } from '@agate/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Gate, Output, run, System, Timeline, Tool, User } from '../../index.js';

const Verdict = z.object({
  verdict: z.enum(['approve', 'request-changes']),
  issues: z.array(z.string()),
});
type Verdict = z.infer<typeof Verdict>;

function Reviewer(props: { gate?: boolean; maxBlocks?: number }) {
  return (
    <>
      <System>You review a change and answer with a verdict.</System>
      <User>Review the change to math.js.</User>
      <Timeline />
      <Tool name="read_file" input={z.object({ path: z.string() })} execute={() => 'a + b'} />
      {props.gate ? (
        <Gate
          name="tests-run"
          description="The tests must run before a verdict"
          instructions="Run the tests before you answer."
          initial="active"
          clearableBy="host"
          clearWhen={() => false}
          activateWhen={() => false}
        />
      ) : null}
      <Output
        schema={Verdict}
        {...(props.maxBlocks !== undefined ? { maxBlocks: props.maxBlocks } : {})}
      />
    </>
  );
}

const answer = (input: unknown) => ({ toolCalls: [{ toolName: 'final_answer', input }] });
const good: Verdict = { verdict: 'approve', issues: [] };

describe('<Output>', () => {
  it('a valid final_answer ends the run completed, with result.output typed', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'read_file', input: { path: 'math.js' } }] },
      answer(good),
    ]);
    const result = await run<Verdict>(<Reviewer />, { model });
    expect(result.status).toBe('completed');
    expect(result.output).toEqual(good);
    expectTypeOf(result.output).toEqualTypeOf<Verdict | undefined>();
    // The run:end event carries it too (what `agate run --json` prints last).
    expect(result.events.at(-1)).toMatchObject({ type: 'run:end', output: good });
    // final_answer was offered with the schema as its input, on every request.
    expect(model.calls[0]?.tools?.map((t) => t.name)).toContain('final_answer');
  });

  it('an invalid one is refused with the zod issues; the next valid one completes', async () => {
    const model = scriptedModel([answer({ verdict: 'lgtm' }), answer(good)]);
    const result = await run(<Reviewer />, { model });
    expect(result.status).toBe('completed');
    const refusal = JSON.stringify(model.calls[1]?.prompt);
    expect(refusal).toContain('Invalid arguments for tool \\"final_answer\\"');
    expect(refusal).toContain('verdict');
    expect(result.output).toEqual(good);
  });

  it('invalid answers are bounded like a gate: the run ends blocked', async () => {
    const model = scriptedModel([answer({ verdict: 'lgtm' })], { whenExhausted: 'repeat-last' });
    const result = await run(<Reviewer maxBlocks={2} />, { model, maxTicks: 10 });
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('final_answer was refused 3 times (maxBlocks 2)');
    expect(result.output).toBeUndefined();
  });

  it('finishing with plain text is refused: call final_answer', async () => {
    const model = scriptedModel(['Looks good to me.', answer(good)]);
    const result = await run(<Reviewer />, { model });
    expect(result.status).toBe('completed');
    expect(result.events.some((e) => e.type === 'exit:blocked' && e.gates.includes('output'))).toBe(
      true,
    );
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain('call final_answer');
  });

  it("a valid answer while a gate is engaged is refused with the gate's reason", async () => {
    const model = scriptedModel([answer(good)], { whenExhausted: 'repeat-last' });
    const result = await run(<Reviewer gate />, { model, maxTicks: 10 });
    expect(result.status).toBe('blocked');
    expect(result.output).toBeUndefined();
    expect(result.events.at(-1)).toMatchObject({ type: 'run:end', status: 'blocked' });
    expect(result.events.at(-1)).not.toHaveProperty('output');
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain('Run the tests before you answer.');
  });

  it('a refused final answer reads as refused: in the next request, the timeline and the event, before tick:end', async () => {
    const model = scriptedModel([answer(good)], { whenExhausted: 'repeat-last' });
    const result = await run(<Reviewer gate maxBlocks={5} />, { model, maxTicks: 2 });
    const prompt = JSON.stringify(model.calls[1]?.prompt);
    expect(prompt).toContain('Not accepted: Gate \\"tests-run\\" is active (refusal 1 of');
    expect(prompt).not.toContain('Final answer accepted.');
    const types = result.events.filter((e) => 'tick' in e && e.tick === 1).map((e) => e.type);
    expect(types.slice(types.indexOf('exit:attempt'))).toEqual([
      'exit:attempt',
      'tool:result',
      'tick:end',
      'exit:blocked',
    ]);
    const judged = result.events.find((e) => e.type === 'tool:result' && e.tick === 1);
    expect(judged).toMatchObject({ isError: true, toolName: 'final_answer' });
    expect(String((judged as { output: unknown }).output)).toMatch(
      /^Not accepted: Gate "tests-run"/,
    );
  });

  it('an accepted final answer reads as accepted; an invalid one as not accepted, with its count', async () => {
    const model = scriptedModel([answer({ verdict: 'lgtm' }), answer(good)]);
    const result = await run(<Reviewer />, { model });
    expect(result.status).toBe('completed');
    const results = result.events.filter((e) => e.type === 'tool:result');
    expect(String((results[0] as { output: unknown }).output)).toMatch(
      /^Not accepted: <Output>: the answer does not match the schema \(refusal 1 of \d+\): Invalid arguments/,
    );
    expect(results[1]).toMatchObject({ output: 'Final answer accepted.', isError: false });
  });

  it('without <Output>, final_answer is no tool and a plain answer completes', async () => {
    const model = scriptedModel(['Done.']);
    const result = await run(
      <>
        <User>Hi</User>
        <Timeline />
      </>,
      { model },
    );
    expect(result.status).toBe('completed');
    expect(result.output).toBeUndefined();
  });
});
