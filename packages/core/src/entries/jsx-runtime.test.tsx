/** @jsxImportSource @agate/core */
import { scriptedModel } from '@agate/testing';
import { jsx as reactJsx } from 'react/jsx-runtime';
import { describe, expect, it } from 'vitest';
import { createSession, System, User } from '../index.js';
import { jsx } from './jsx-runtime.js';

/** An agent compiled through @agate/core/jsx-runtime (this file's pragma) runs as with React's. */
describe('@agate/core/jsx-runtime', () => {
  it("is React's runtime underneath: the same elements, one React", () => {
    expect(jsx).toBe(reactJsx);
  });

  it('compiles an agent tree that runs', async () => {
    const session = createSession(
      <>
        <System>Answer briefly.</System>
        <User>Hi</User>
      </>,
      { model: scriptedModel(['Hello.']) },
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Hello.');
  });
});
