import {
  type AgateEvent,
  createSession,
  Gate,
  type SessionState,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeDecision, describeLedgerEntry } from './decision-text.js';

function Agent() {
  return (
    <>
      <System>You tidy the database.</System>
      <User>Drop the old logs.</User>
      <Timeline />
      <Gate
        name="checked"
        description="Check the backups first"
        instructions="Check the backups, then clear this gate."
        initial="active"
      />
      <Tool
        name="drop_table"
        description="Drops a table"
        input={z.object({ table: z.string() })}
        needsApproval
        execute={({ table }) => `dropped ${table}`}
      />
    </>
  );
}

/** A real run's guard decisions, as the tick log keeps them (every event but the loop's own). */
async function realRun() {
  const events: AgateEvent[] = [];
  const session = createSession(<Agent />, {
    id: 'tidy',
    onEvent: (event) => events.push(event),
    model: scriptedModel([
      'All done.',
      { toolCalls: [{ toolName: 'set_knob', input: { name: 'checked', value: 'inactive' } }] },
      { toolCalls: [{ toolCallId: 'c-1', toolName: 'drop_table', input: { table: 'old_logs' } }] },
    ]),
  });
  await session.run();
  return { events, state: session.state as SessionState };
}

describe('describeDecision', () => {
  it("reads a real run's guard decisions as sentences", async () => {
    const { events } = await realRun();
    const sentences = events
      .filter((e) => ['exit:blocked', 'gate:cleared', 'tool:held'].includes(e.type))
      .map((e) => describeDecision(e).sentence);
    expect(sentences).toEqual([
      'Finishing was refused by gate "checked": Gate "checked" is active (refusal 1 of 5): ' +
        'Check the backups first. What is missing: Check the backups, then clear this gate. ' +
        'What would satisfy it: do the work above, then call set_knob with ' +
        '{"name":"checked","value":"inactive"}. The run went on.',
      'The model cleared gate "checked" (it was active) — set_knob.',
      'approvals held the call to drop_table (c-1) for a person\'s approval — tool "drop_table" needs approval.',
    ]);
    // Every event has a sentence and its JSON, whatever its type.
    for (const event of events) {
      const line = describeDecision(event);
      expect(line.sentence.length).toBeGreaterThan(5);
      expect(JSON.parse(line.json)).toEqual(JSON.parse(JSON.stringify(event)));
    }
  });

  it('reads events of other kinds and other versions, and never throws on a damaged one', () => {
    expect(
      describeDecision({
        type: 'checkpoint:pending',
        tick: 2,
        id: 'T-1',
        cause: 'submit',
        reason: 'Saved.',
      }).sentence,
    ).toBe('Checkpoint T-1 waits for a supervisor (submit) — Saved.');
    expect(
      describeDecision({
        type: 'tool:refused',
        tick: 1,
        toolCallId: 'c',
        toolName: 'rm',
        by: 'checkpoint',
        message: 'T-1 is pending.',
      }).sentence,
    ).toBe('checkpoint refused the call to rm (c) before it ran — T-1 is pending.');
    expect(
      describeDecision({ type: 'budget:spent', tick: 3, dollars: 1.5, path: [] }).sentence,
    ).toBe('budget:spent: dollars 1.5.');
    for (const damaged of [
      null,
      7,
      'x',
      [],
      {},
      { type: 'exit:blocked', gates: 'no', reasons: [1] },
      { type: 'continue:evaluated', evaluation: null },
    ]) {
      const line = describeDecision(damaged);
      expect(typeof line.sentence).toBe('string');
      expect(typeof line.json).toBe('string');
    }
    // A long field is shortened in the sentence only: the JSON holds it whole.
    const long = describeDecision({ type: 'custom:note', text: 'x'.repeat(500) });
    expect(long.sentence).toContain('… (see the JSON)');
    expect(long.json).toContain('x'.repeat(500));
  });
});

describe('describeLedgerEntry', () => {
  it('reads a real ledger: who asked, who decided, the digest, signed or not', async () => {
    const { state } = await realRun();
    const lines = state.guards.approvals.ledger.map((e) => describeLedgerEntry(e).sentence);
    expect(lines).toEqual([
      expect.stringMatching(
        /^#1, tick \d+: The call c-1 to drop_table was held for approval \(input sha256 [0-9a-f]{64}\).* \(unsigned\)$/,
      ),
    ]);
    expect(
      describeLedgerEntry({
        seq: 2,
        tick: 3,
        kind: 'rejected',
        by: 'ana',
        feedback: 'Say bye.',
        checkpoint: 'T-1',
        signature: 'abc',
      }).sentence,
    ).toBe('#2, tick 3: ana rejected checkpoint T-1 — Say bye. (signed)');
    expect(
      describeLedgerEntry({ seq: 1, tick: 4, kind: 'budget', by: 'runtime', checkpoint: 'T-2' })
        .sentence,
    ).toBe('#1, tick 4: Checkpoint T-2 went pending: its tick budget ran out. (unsigned)');
    expect(describeLedgerEntry({ kind: 'tool-spent', checkpoint: 'c-1' }).sentence).toBe(
      '#?, tick ?: tool-spent: checkpoint c-1. (unsigned)',
    );
    expect(describeLedgerEntry(undefined).sentence).toContain('(no kind)');
  });
});
