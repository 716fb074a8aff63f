import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { DurableSteps, ModelTurn, ToolStepRecord } from '../entries/internal.js';
import { Checkpoint, createSession, Tool } from '../index.js';
import { call, FaultAgent, step } from './harness.js';

/**
 * `SessionOptions.steps`, the seam a durable engine (`@agate/dbos`) runs model and tool calls
 * through. These cases replay a run from a record, as an engine does after a crash.
 */
function recorder() {
  const models: ModelTurn[] = [];
  const tools: ToolStepRecord[] = [];
  const steps: DurableSteps = {
    model: async (run) => {
      const turn = await run();
      models.push(turn);
      return turn;
    },
    tool: async (run) => {
      const record = await run();
      tools.push(record);
      return record;
    },
  };
  return { models, tools, steps };
}

/** Answers every call from the record; a call past its end runs for real. */
function replayer(models: ModelTurn[], tools: ToolStepRecord[]): DurableSteps {
  let m = 0;
  let t = 0;
  return {
    model: async (run) => models[m++] ?? run(),
    tool: async (run) => tools[t++] ?? run(),
  };
}

describe('durable step faults', () => {
  it('a run replayed from its record after a crash', async () => {
    let executions = 0;
    const counting = (
      <FaultAgent
        extra={
          <Tool
            name="effect"
            input={z.object({})}
            execute={() => {
              executions++;
              return 'done';
            }}
          />
        }
      />
    );
    const script = [step(1), { toolCalls: [{ toolName: 'effect', input: {} }] }, 'Finished.'];
    const first = recorder();
    const original = await createSession(counting, {
      model: scriptedModel(script),
      steps: first.steps,
    }).run();
    expect(original.status).toBe('completed');
    expect(executions).toBe(1);

    // The crashed process recorded everything but the last model call.
    const model = scriptedModel(['Finished.']);
    const replayed = await createSession(counting, {
      model,
      steps: replayer(first.models.slice(0, 2), first.tools),
    }).run();
    expect(replayed.status).toBe('completed');
    expect(replayed.timeline).toEqual(original.timeline);
    expect(executions).toBe(1);
    expect(model.calls).toHaveLength(1);
  });

  it('a run replayed after it submitted a checkpoint', async () => {
    // submit_checkpoint only changes the session's state: a replay must call it again (a
    // recorded answer would leave the checkpoint unsubmitted and the replay calling the model).
    const reviewed = <FaultAgent extra={<Checkpoint id="T-1" task="Do step 1." budget={4} />} />;
    const script = [
      step(1),
      call({ id: 'T-1', summary: 'Step 1 is done.' }, 'submit_checkpoint'),
      'More.',
    ];
    const first = recorder();
    const original = await createSession(reviewed, {
      model: scriptedModel(script),
      steps: first.steps,
    }).run();
    expect(original.status).toBe('awaiting-approval');
    expect(first.tools.map((t) => t.result.toolName)).toEqual(['step']);
    const replayed = await createSession(reviewed, {
      model: scriptedModel([]),
      steps: replayer(first.models, first.tools),
    }).run();
    expect(replayed.status).toBe('awaiting-approval');
    expect(replayed.timeline).toEqual(original.timeline);
    expect(replayed.checkpointLedger.map((e) => e.kind)).toEqual(
      original.checkpointLedger.map((e) => e.kind),
    );
  });

  it('a recorded tool call that had failed', async () => {
    const failing = (
      <FaultAgent
        extra={
          <Tool
            name="flaky"
            input={z.object({})}
            execute={() => {
              throw new Error('disk full');
            }}
          />
        }
      />
    );
    const script = [{ toolCalls: [{ toolName: 'flaky', input: {} }] }, 'Gave up.'];
    const first = recorder();
    await createSession(failing, { model: scriptedModel(script), steps: first.steps }).run();
    expect(first.tools[0]).toMatchObject({
      executed: true,
      error: { name: 'Error', message: 'disk full' },
    });
    const replayed = await createSession(failing, {
      model: scriptedModel([]),
      steps: replayer(first.models, first.tools),
    }).run();
    expect(replayed.status).toBe('completed');
    expect(JSON.stringify(replayed.timeline)).toContain('Tool \\"flaky\\" failed: disk full');
  });

  it('a durable step hook that rejects', async () => {
    const steps: DurableSteps = {
      model: async (run) => run(),
      tool: async () => {
        throw new Error('connection to the step store lost');
      },
    };
    const session = createSession(<FaultAgent />, {
      model: scriptedModel([step(1), 'Done.']),
      steps,
    });
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe('Tick 1, tool: connection to the step store lost');
    expect(session.state.tick).toBe(0);
  });
});
