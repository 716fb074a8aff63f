import { describe, expect, it } from 'vitest';
import { summarize } from '../stats.js';
import type { OwnTickResult } from './measure.js';
import { OWN_TICK_PARTS, type TickPart } from './parts.js';
import { OWN_TICK_TARGET_MS, ownTickParts, ownTickRow, ownTickSection } from './report.js';

function result(own: number[], parts: Partial<Record<TickPart, number>> = {}): OwnTickResult {
  const allParts = Object.fromEntries(
    [...OWN_TICK_PARTS, 'AI SDK call'].map((part) => [part, parts[part as TickPart] ?? 0]),
  ) as Record<TickPart, number>;
  return {
    ticks: 10,
    tools: 21,
    reps: own.length,
    inner: 100,
    perTick: {
      agate: summarize(own.map((v) => v + 0.04)),
      sdkCalls: summarize(own.map(() => 0.04)),
    },
    own: summarize(own),
    ownPaired: summarize(own.map((v) => v * 2)),
    parts: allParts,
    profiledTicks: 10_000,
    samplingUs: 100,
  };
}

describe('ownTickRow', () => {
  it('judges the per-repetition spread of the own time against 0.03 ms', () => {
    expect(ownTickRow(result([0.02, 0.025, 0.029])).verdict).toBe('met');
    expect(ownTickRow(result([0.025, 0.031])).verdict).toBe('not resolved');
    expect(ownTickRow(result([0.09, 0.1, 0.12])).verdict).toBe('missed');
    expect(ownTickRow(undefined).verdict).toBe('not measured');
    expect(OWN_TICK_TARGET_MS).toBe(0.03);
  });

  it('says what was measured: both sides, the spread, the paired median', () => {
    const row = ownTickRow(result([0.09, 0.1, 0.12]));
    expect(row.measured).toBe(
      '0.100 ms (0.140 ms a tick vs 0.040 ms for its call alone; median of paired rounds +0.200 ms)',
    );
    expect(row.spread).toBe('0.090 ms – 0.120 ms');
    expect(row.target).toBe('≤ 0.03 ms');
    expect(row.what).toContain('10-tick run made from scratch with 21 tools');
  });
});

describe('ownTickParts', () => {
  it("shares Agate's own samples out, largest first, leaving out the SDK's", () => {
    const rows = ownTickParts(
      result([0.1], { 'render and compile': 0.3, guards: 0.1, 'AI SDK call': 5, other: 0.1 }),
    );
    expect(rows.map((r) => r.part).slice(0, 3)).toEqual(['render and compile', 'guards', 'other']);
    expect(rows[0]!.share).toBeCloseTo(0.6);
    expect(rows[0]!.estimated).toBeCloseTo(0.06);
    expect(rows.reduce((sum, r) => sum + r.share, 0)).toBeCloseTo(1);
    expect(rows).toHaveLength(OWN_TICK_PARTS.length);
  });

  it('gives no shares when the profile caught none of Agate', () => {
    expect(ownTickParts(result([0.1])).every((r) => r.share === 0)).toBe(true);
  });
});

describe('ownTickSection', () => {
  it('has a table of the sides and one of the parts', () => {
    const lines = ownTickSection(result([0.1], { events: 0.01, 'AI SDK call': 0.2 }));
    expect(lines[0]).toBe("### Agate's own tick");
    expect(lines).toContain("| Agate's own (per repetition) | 0.100 ms | 0.100 ms | 0.100 ms |");
    expect(lines.find((l) => l.startsWith('| events:'))).toBe(
      '| events: building and delivering them (`runtime/events.ts`), the tick log | 0.010 ms | 100.0% | 0.100 ms |',
    );
    expect(ownTickSection(undefined)).toEqual([]);
  });
});
