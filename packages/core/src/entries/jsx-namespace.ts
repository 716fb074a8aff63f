// The JSX namespace of agent files (`"jsxImportSource": "@agate/core"`): React's, except that it
// has no intrinsic elements. An agent tree renders to model context, not to a page, so `<div>`
// is refused at compile time (the renderer would refuse it at run time: InvalidElementError).
import type * as React from 'react';

export declare namespace JSX {
  type ElementType = React.JSX.ElementType;
  interface Element extends React.JSX.Element {}
  interface ElementClass extends React.JSX.ElementClass {}
  interface ElementAttributesProperty extends React.JSX.ElementAttributesProperty {}
  interface ElementChildrenAttribute extends React.JSX.ElementChildrenAttribute {}
  type LibraryManagedAttributes<C, P> = React.JSX.LibraryManagedAttributes<C, P>;
  interface IntrinsicAttributes extends React.JSX.IntrinsicAttributes {}
  interface IntrinsicClassAttributes<T> extends React.JSX.IntrinsicClassAttributes<T> {}
  /** None: DOM tags such as `<div>` are no part of an agent's context. */
  // biome-ignore lint/suspicious/noEmptyInterface: empty on purpose, see above.
  interface IntrinsicElements {}
}
