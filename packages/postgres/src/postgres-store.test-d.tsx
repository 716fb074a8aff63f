/** The PostgreSQL store is a `SessionStore`: anything that takes a store takes it. */
import { createSession, type SessionOptions, type SessionStore, System } from '@agate/core';
import { describe, expectTypeOf, it } from 'vitest';
import { createPostgresStore } from './index.js';

declare const options: SessionOptions;

describe('createPostgresStore', () => {
  it('makes a SessionStore, with every optional method', () => {
    const store = createPostgresStore({ connectionString: 'postgres://localhost/agate' });
    expectTypeOf(store).toExtend<SessionStore>();
    expectTypeOf(store).toExtend<Required<Omit<SessionStore, never>>>();
    createSession(<System>Hello.</System>, { ...options, store });
  });
});
