import { describe, expect, it } from 'vitest';
import { decideExit } from './decide-exit.js';
import type { GateInfo } from './gate-types.js';

function info(name: string, overrides: Partial<GateInfo> = {}): GateInfo {
  return {
    name,
    rendered: true,
    state: 'active',
    description: `${name} guard`,
    instructions: `Do the ${name} work.`,
    clearableBy: 'model',
    blocks: 0,
    maxBlocks: 5,
    ...overrides,
  };
}

describe('decideExit', () => {
  it('lets the run finish when no gate is engaged', () => {
    expect(decideExit([])).toEqual({ kind: 'finish' });
    expect(
      decideExit([info('a', { state: 'inactive' }), info('b', { state: 'inactive' })]),
    ).toEqual({ kind: 'finish' });
  });

  it('refuses while a gate is active, naming the gate, what is missing and what satisfies it', () => {
    const decision = decideExit([info('verification', { instructions: 'Run the tests.' })]);
    expect(decision.kind).toBe('refuse');
    if (decision.kind !== 'refuse') return;
    expect(decision.gates).toEqual([{ name: 'verification', wasDeferred: false, blocks: 1 }]);
    expect(decision.notice).toMatchInlineSnapshot(`
      "EXIT REFUSED: you tried to finish, but a gate is still engaged.
      - Gate "verification" is active (refusal 1 of 5): verification guard. What is missing: Run the tests. What would satisfy it: do the work above, then call set_knob with {"name":"verification","value":"inactive"}.
      4 more attempts to finish without satisfying it will be refused; the one after that ends the run as blocked (not completed)."
    `);
    expect(decision.reasons).toHaveLength(1);
    expect(decision.reasons[0]).toContain('Gate "verification"');
  });

  it('un-defers a deferred gate and says so', () => {
    const decision = decideExit([info('verification', { state: 'deferred', blocks: 2 })]);
    expect(decision.kind).toBe('refuse');
    if (decision.kind !== 'refuse') return;
    expect(decision.gates).toEqual([{ name: 'verification', wasDeferred: true, blocks: 3 }]);
    expect(decision.notice).toContain('Gate "verification" was deferred, now active again');
    expect(decision.notice).toContain('2 more attempts');
  });

  it('tells the model that set_knob cannot clear host and supervisor gates', () => {
    const host = decideExit([info('tests', { clearableBy: 'host' })]);
    expect(host.kind === 'refuse' && host.notice).toContain(
      'the host clears this gate itself when it sees the evidence (set_knob cannot clear it)',
    );
  });

  it('with maxBlocks N refuses exactly N attempts, then ends blocked naming the gate', () => {
    const N = 3;
    let blocks = 0;
    const kinds: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const decision = decideExit([info('verification', { blocks, maxBlocks: N })]);
      kinds.push(decision.kind);
      if (decision.kind === 'finish') break;
      blocks = decision.gates[0]!.blocks;
      if (decision.kind === 'end-blocked') {
        expect(decision.reason).toContain('Gate "verification" refused 4 attempts');
        expect(decision.reason).toContain('maxBlocks 3');
        expect(decision.reason).toContain('What is missing: Do the verification work.');
        break;
      }
    }
    expect(kinds).toEqual(['refuse', 'refuse', 'refuse', 'end-blocked']);
  });

  it('the last refusal before the bound warns that the next attempt ends the run', () => {
    const decision = decideExit([info('verification', { blocks: 4, maxBlocks: 5 })]);
    expect(decision.kind === 'refuse' && decision.notice).toContain(
      'The next attempt to finish without satisfying it ends the run as blocked (not completed).',
    );
  });

  it('maxBlocks 0 ends the run at the first attempt', () => {
    const decision = decideExit([info('hard', { maxBlocks: 0 })]);
    expect(decision.kind).toBe('end-blocked');
    expect(decision.kind === 'end-blocked' && decision.reason).toContain(
      'Gate "hard" refused 1 attempt to finish (maxBlocks 0)',
    );
  });

  it('ends blocked at once on an engaged supervisor gate, waiting for a person', () => {
    const decision = decideExit([
      info('review', { clearableBy: 'supervisor', state: 'deferred' }),
      info('verification'),
    ]);
    expect(decision.kind).toBe('end-blocked');
    if (decision.kind !== 'end-blocked') return;
    expect(decision.reason).toMatch(/^Waiting for a supervisor: gate "review"/);
    expect(decision.reason).toContain('session.clearGate("review", "supervisor")');
    // Every engaged gate is counted and un-deferred, not only the one that ended the run.
    expect(decision.gates).toEqual([
      { name: 'review', wasDeferred: true, blocks: 1 },
      { name: 'verification', wasDeferred: false, blocks: 1 },
    ]);
  });

  it('the tightest gate decides how many refusals are left', () => {
    const decision = decideExit([
      info('a', { blocks: 0, maxBlocks: 10 }),
      info('b', { blocks: 1, maxBlocks: 3 }),
    ]);
    expect(decision.kind === 'refuse' && decision.notice).toContain('1 more attempt to finish');
    expect(decision.kind === 'refuse' && decision.notice).toContain('2 gates are still engaged');
  });

  it('does not depend on the order gates are given in', () => {
    const gates = [
      info('zeta'),
      info('alpha', { state: 'deferred' }),
      info('mid', { state: 'inactive' }),
      info('beta', { blocks: 2 }),
    ];
    const expected = decideExit(gates);
    expect(expected.kind).toBe('refuse');
    if (expected.kind !== 'refuse') return;
    expect(expected.gates.map((g) => g.name)).toEqual(['alpha', 'beta', 'zeta']);
    for (const order of permutations(gates)) expect(decideExit(order)).toEqual(expected);
  });

  it('does not mutate its input', () => {
    const gates = Object.freeze([Object.freeze(info('a', { state: 'deferred' }))]);
    decideExit(gates);
    expect(gates[0]!.state).toBe('deferred');
    expect(gates[0]!.blocks).toBe(0);
  });
});

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}
