/**
 * Issue 51 item 4: the built-in slices' schemas are built when a restored session is checked,
 * not when `@agate/core` loads, and a run from scratch never builds them. Each slice's
 * `stateSchema` read is recorded here (the getter wrapped), so a slice made eager again, or a
 * fresh run that starts reading them, fails this file rather than only the bench's import row.
 */
import { scriptedModel } from '@agate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession, System, User } from '../index.js';
import type { FamilySlice } from '../state/family-slice.js';
import { BUILT_IN_SLICES } from './built-in-slices.js';

const reads: string[] = [];
const originals = new Map<FamilySlice, PropertyDescriptor>();

beforeEach(() => {
  reads.length = 0;
  for (const slice of BUILT_IN_SLICES) {
    const original = Object.getOwnPropertyDescriptor(slice, 'stateSchema');
    if (original?.get === undefined) continue; // the first test names such a slice
    originals.set(slice, original);
    Object.defineProperty(slice, 'stateSchema', {
      configurable: true,
      enumerable: original.enumerable ?? true,
      get() {
        reads.push(slice.name);
        return original.get?.call(slice);
      },
    });
  }
});

afterEach(() => {
  for (const [slice, original] of originals) Object.defineProperty(slice, 'stateSchema', original);
  originals.clear();
});

function Agent() {
  return (
    <>
      <System>You answer.</System>
      <User>Say done.</User>
    </>
  );
}

describe('built-in slices: schemas built on first read (issue 51 item 4)', () => {
  it("every built-in slice's stateSchema is a getter, not a schema built at import", () => {
    const eager = BUILT_IN_SLICES.filter(
      (slice) => Object.getOwnPropertyDescriptor(slice, 'stateSchema')?.get === undefined,
    ).map((slice) => slice.name);
    expect(eager).toEqual([]);
  });

  it('hands out one schema per slice, which accepts the initial state and refuses a damaged one', () => {
    for (const slice of BUILT_IN_SLICES) {
      const schema = slice.stateSchema;
      expect(slice.stateSchema, slice.name).toBe(schema);
      expect(schema.safeParse(slice.initialState()).success, slice.name).toBe(true);
      expect(schema.safeParse('not a slice').success, slice.name).toBe(false);
    }
  });

  it('a run from scratch builds none of them; restoring its snapshot checks them all', async () => {
    const first = createSession(<Agent />, { model: scriptedModel([{ text: 'done' }]) });
    const result = await first.run();
    expect(result.status).toBe('completed');
    expect(reads).toEqual([]);

    const snapshot = JSON.parse(JSON.stringify(first.snapshot()));
    createSession(<Agent />, { model: scriptedModel([{ text: 'done' }]), snapshot });
    expect(new Set(reads)).toEqual(new Set(BUILT_IN_SLICES.map((slice) => slice.name)));
  });
});
