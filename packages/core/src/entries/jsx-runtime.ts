// @agate/core/jsx-runtime: what `"jsxImportSource": "@agate/core"` compiles agent files to.
// React's automatic runtime underneath (the same elements, one React), with Agate's JSX
// namespace, which has no DOM tags (docs/rendering.md#jsx-without-dom-tags).
export { Fragment, jsx, jsxs } from 'react/jsx-runtime';
export type { JSX } from './jsx-namespace.js';
