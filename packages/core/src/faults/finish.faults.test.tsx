/**
 * Faults around a call that asks to finish (`final_answer`): what the model reads as its result
 * is one bounded plain line however large or hostile the arguments or a guard's reason, and a
 * refusal loop ends blocked, saying so in the text the model reads.
 */
import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MAX_GUARD_REFUSAL_CHARS,
  MAX_NOT_ACCEPTED_CHARS,
  NOT_ACCEPTED,
} from '../guard-seam/exit-refusal-text.js';
import { createSession, defineGuard, Gate, Output } from '../index.js';
import { FaultAgent, toolOutputs, watch } from './harness.js';

const Answer = z.object({ summary: z.string() });
const finish = (input: unknown): ScriptedTurn => ({
  toolCalls: [{ toolName: 'final_answer', input }],
});

// Control characters the model must never be sent back: C0/C1 (ESC, BEL, NUL, CR, LF), DEL
// and the bidi overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters looked for.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters looked for.
const UNSAFE_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007\u202eevil\u0000\r\n';

/** The `final_answer` results the session's timeline holds (what the next request carries). */
function finishResults(session: ReturnType<typeof createSession>): string[] {
  return toolOutputs(session).filter(
    (v): v is string =>
      typeof v === 'string' && (v.startsWith(NOT_ACCEPTED) || v.startsWith('Final answer')),
  );
}

/** Every `final_answer` text is one bounded plain line. */
function expectBoundedPlain(texts: readonly string[]): void {
  for (const text of texts) {
    expect(text.length).toBeLessThanOrEqual(MAX_NOT_ACCEPTED_CHARS);
    expect(text).not.toMatch(UNSAFE);
  }
}

let refusal = '';
const Hostile = defineGuard({
  name: 'hostile',
  // Refuses once with `refusal`, then lets the run finish.
  exitAttempt: () => {
    const reason = refusal;
    refusal = '';
    return reason === '' ? undefined : { refuse: reason };
  },
});

describe('finish-call faults', () => {
  it('a final_answer whose arguments are huge, hostile or not JSON', async () => {
    const huge = `${HOSTILE}${'x'.repeat(1_000_000)}`;
    const model = scriptedModel([
      // Not JSON at all, 1 MB of it: the arguments never parse.
      { toolCalls: [{ toolName: 'final_answer', input: `{"summary": "${huge}` }] },
      // A megabyte key the schema does not know, and a value of the wrong type.
      finish({ [huge]: 1, summary: 42 }),
      // Valid: a 1 MB summary with control characters is the answer, stored as given.
      finish({ summary: huge }),
    ]);
    const session = createSession(<FaultAgent extra={<Output schema={Answer} maxBlocks={3} />} />, {
      model,
    });
    const w = watch(session);
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ summary: huge });
    const texts = finishResults(session);
    expect(texts).toHaveLength(3);
    expect(texts[0]).toMatch(
      /^Not accepted: <Output>: the answer does not match the schema \(refusal 1 of 3\)/,
    );
    expect(texts[1]).toMatch(
      /^Not accepted: <Output>: the answer does not match the schema \(refusal 2 of 3\)/,
    );
    expect(texts[2]).toBe('Final answer accepted.');
    expectBoundedPlain(texts);
    // The events the stream and the studio get read the same.
    const events = w.ofType('tool:result').filter((e) => e.toolName === 'final_answer');
    expect(events.map((e) => e.output)).toEqual(texts);
    // The model was never sent the megabyte back: its requests stay small.
    expect(JSON.stringify(model.calls[1]?.prompt).length).toBeLessThan(1_100_000);
    expect(JSON.stringify(model.calls[2]?.prompt).length).toBeLessThan(2_200_000);
  });

  it('a guard whose refusal reason is a megabyte of control characters', async () => {
    refusal = `${HOSTILE}${'why '.repeat(250_000)}`;
    const model = scriptedModel([finish({ summary: 'done' }), finish({ summary: 'done' })]);
    const session = createSession(
      <FaultAgent
        extra={
          <>
            <Output schema={Answer} />
            <Hostile />
          </>
        }
      />,
      { model },
    );
    const w = watch(session);
    const result = await session.run();
    expect(result.status).toBe('completed');
    const [refused, accepted] = finishResults(session);
    expect(refused).toMatch(/^Not accepted: \[2J \]0;pwned evil why why /);
    expect(refused).toMatch(/… \(\d+ more characters\)\.$/);
    expectBoundedPlain([refused ?? '']);
    expect(accepted).toBe('Final answer accepted.');
    const events = w.ofType('tool:result').filter((e) => e.toolName === 'final_answer');
    expect(events.map((e) => [e.output, e.isError])).toEqual([
      [refused, true],
      [accepted, false],
    ]);
    // The next request (the result and the EXIT REFUSED notice) carries bounded text, not the
    // megabyte, and none of its escapes; so do the exit:blocked event and the run's end.
    const next = JSON.stringify(model.calls[1]?.prompt);
    expect(next.length).toBeLessThan(20_000);
    expect(next).not.toMatch(/\\u001b|\\u0007|\\u0000|\u202e/);
    const [blocked] = w.ofType('exit:blocked');
    expect(blocked?.reasons.join('').length).toBeLessThanOrEqual(MAX_GUARD_REFUSAL_CHARS);
    // Its newline stays (a guard's refusal may be several lines); escapes and overrides go.
    expect(blocked?.reasons.join('')).not.toMatch(UNSAFE_BUT_LINES);
  });

  it('a model that keeps calling final_answer past a gate until maxBlocks', async () => {
    const model = scriptedModel([finish({ summary: 'done' })], { whenExhausted: 'repeat-last' });
    const session = createSession(
      <FaultAgent
        extra={[
          <Output key="o" schema={Answer} />,
          <Gate
            key="g"
            name="review"
            description="A person must review first"
            instructions="Wait for the review."
            initial="active"
            clearableBy="host"
            clearWhen={() => false}
            maxBlocks={2}
          />,
        ]}
      />,
      { model, maxTicks: 10 },
    );
    const result = await session.run();
    expect(result.status).toBe('blocked');
    expect(result.output).toBeUndefined();
    // Refused twice, the third attempt ends the run: three calls, the last one says so.
    expect(model.calls).toHaveLength(3);
    const texts = finishResults(session);
    expect(texts).toHaveLength(3);
    expect(texts[0]).toMatch(/^Not accepted: Gate "review" is active \(refusal 1 of 2\)/);
    expect(texts[1]).toMatch(/^Not accepted: Gate "review" is active \(refusal 2 of 2\)/);
    expect(texts[2]).toMatch(/^Not accepted: .*The run ends blocked \(not completed\)\.$/);
    expect(texts.some((t) => t.includes('accepted.') && !t.startsWith(NOT_ACCEPTED))).toBe(false);
    expectBoundedPlain(texts);
    expect(result.reason).toContain('review');
  });
});
