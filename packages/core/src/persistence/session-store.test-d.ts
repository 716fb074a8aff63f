/**
 * The store interfaces' promise: the built-in stores are `SessionStore`s, a store of your own
 * implements `save`, `load` and `list` (the rest are optional) with the option and summary
 * types of `@agate/core/stores`, and `updateSession` returns what its recipe returns.
 */
import {
  createFileStore,
  createMemoryStore,
  type SessionSnapshot,
  type SessionStore,
} from '@agate/core';
import {
  type ListOptions,
  type RestorePointSummary,
  type SaveOptions,
  type SessionSummary,
  type TickRecord,
  updateSession,
} from '@agate/core/stores';
import { describe, expectTypeOf, it } from 'vitest';

const load = async (): Promise<SessionSnapshot | undefined> => undefined;
const list = async (): Promise<SessionSummary[]> => [];
const save = async (): Promise<void> => {};

describe('SessionStore', () => {
  it('is what the built-in stores are', () => {
    expectTypeOf(createMemoryStore()).toEqualTypeOf<SessionStore>();
    expectTypeOf(createFileStore('.agate/sessions')).toExtend<SessionStore>();
  });

  it('has these methods, with these options and answers', () => {
    expectTypeOf<SessionStore['save']>().parameters.toEqualTypeOf<
      [snapshot: SessionSnapshot, options?: SaveOptions]
    >();
    expectTypeOf<SessionStore['load']>().returns.toEqualTypeOf<
      Promise<SessionSnapshot | undefined>
    >();
    expectTypeOf<SessionStore['list']>().parameters.toEqualTypeOf<[options?: ListOptions]>();
    expectTypeOf<SessionStore['list']>().returns.toEqualTypeOf<Promise<SessionSummary[]>>();
    expectTypeOf<NonNullable<SessionStore['listRestorePoints']>>().returns.toEqualTypeOf<
      Promise<RestorePointSummary[]>
    >();
    expectTypeOf<NonNullable<SessionStore['loadTicks']>>().returns.toEqualTypeOf<
      Promise<TickRecord[]>
    >();
    expectTypeOf<SaveOptions>().toEqualTypeOf<{ expectedRevision?: number; decision?: boolean }>();
  });

  it('is implemented by save, load and list alone', () => {
    const minimal = { save, load, list } satisfies SessionStore;
    expectTypeOf(minimal).toExtend<SessionStore>();
    // @ts-expect-error: `list` is required
    const noList: SessionStore = { save, load };
    // @ts-expect-error: `load` answers undefined for a missing session, not null
    const nullLoad: SessionStore = { save, list, load: async () => null };
    // @ts-expect-error: `delete` answers whether the session was stored
    const badDelete: SessionStore = { save, load, list, delete: async () => {} };
    void [noList, nullLoad, badDelete];
  });
});

describe('updateSession', () => {
  it('resolves to what the recipe returns, and the recipe gets the stored snapshot', async () => {
    const store = createMemoryStore();
    const count = await updateSession(store, 'job', (current, attempt) => {
      expectTypeOf(current).toEqualTypeOf<SessionSnapshot | undefined>();
      expectTypeOf(attempt).toBeNumber();
      if (current === undefined) throw new Error('not stored');
      return { snapshot: current, result: 3 };
    });
    expectTypeOf(count).toEqualTypeOf<number>();
    // @ts-expect-error: the recipe returns the snapshot to save with the result
    await updateSession(store, 'job', () => ({ result: 3 }));
  });
});
