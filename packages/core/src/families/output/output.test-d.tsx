/**
 * `<Output schema>`'s promise: `result.output` is the schema's type when the run is typed with
 * it (`run<z.infer<typeof S>>`, `session.run<...>()`), `undefined` until the run completed,
 * and `unknown` for an untyped run.
 */
import { createSession, Output, type RunResult, run, System, User } from '@agate/core';
import type { LanguageModel } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

declare const model: LanguageModel;

const Verdict = z.object({ approve: z.boolean(), reasons: z.array(z.string()) });
type Verdict = z.infer<typeof Verdict>;

const agent = (
  <>
    <System>Review the change.</System>
    <User>Is it safe to merge?</User>
    <Output schema={Verdict} />
  </>
);

describe('RunResult.output', () => {
  it('is the schema’s type, or undefined, for run<T>', async () => {
    const result = await run<Verdict>(agent, { model });
    expectTypeOf(result).toEqualTypeOf<RunResult<Verdict>>();
    expectTypeOf(result.output).toEqualTypeOf<Verdict | undefined>();
    if (result.status === 'completed' && result.output !== undefined) {
      expectTypeOf(result.output.reasons).toEqualTypeOf<string[]>();
    }
    // @ts-expect-error: undefined unless the run completed with an answer
    result.output.approve;
    // @ts-expect-error: the schema has no `score`
    result.output?.score;
  });

  it('is typed the same through a session', async () => {
    const session = createSession(agent, { model });
    const result = await session.run<Verdict>();
    expectTypeOf(result.output).toEqualTypeOf<Verdict | undefined>();
  });

  it('is unknown for a run not typed with it', async () => {
    const result = await run(agent, { model });
    expectTypeOf(result.output).toBeUnknown();
  });
});

describe('<Output>', () => {
  it('takes a zod schema and nothing else', () => {
    <Output schema={z.string()} description="The answer." maxBlocks={3} />;
    // @ts-expect-error: a JSON schema is not a zod schema
    <Output schema={{ type: 'object' }} />;
    // @ts-expect-error: the schema is required
    <Output />;
    // @ts-expect-error: maxBlocks is a number
    <Output schema={Verdict} maxBlocks="3" />;
  });
});
