/** @jsxImportSource @agate/core */
/**
 * Agent files compiled with `"jsxImportSource": "@agate/core"` (what create-agate writes):
 * Agate's components, fragments and your own components type-check as with React's runtime;
 * DOM tags, which the renderer refuses at run time, are refused at compile time.
 */
import { System, Timeline, Tool, User } from '@agate/core';
import type { JSX } from '@agate/core/jsx-runtime';
import type { ReactNode } from 'react';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

function Persona(props: { name: string; children?: ReactNode }) {
  return (
    <System>
      You are {props.name}. {props.children}
    </System>
  );
}

describe('the Agate JSX namespace', () => {
  it("takes Agate's components, fragments and components of your own", () => {
    const tree = (
      <>
        <Persona name="a careful agent">Check your work.</Persona>
        <User>Hello</User>
        <Timeline />
        <Tool name="noop" input={z.object({})} execute={() => 'ok'} />
      </>
    );
    expectTypeOf(tree).toEqualTypeOf<JSX.Element>();
  });

  it('refuses DOM tags: an agent tree is model context, not a page', () => {
    // @ts-expect-error: no intrinsic elements in an agent tree
    <div>hello</div>;
    <User>
      {/* @ts-expect-error: not inside a component's children either */}
      <span />
    </User>;
    expectTypeOf<keyof JSX.IntrinsicElements>().toEqualTypeOf<never>();
  });

  it('still checks the props of components', () => {
    // @ts-expect-error: Persona needs a name
    <Persona />;
  });
});
