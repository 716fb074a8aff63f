// @agate/core/jsx-dev-runtime: the development form of ./jsx-runtime (`"jsx": "react-jsxdev"`,
// and what Vite-based tools such as vitest compile to): React's, with Agate's JSX namespace.
export { Fragment, jsxDEV } from 'react/jsx-dev-runtime';
export type { JSX } from './jsx-namespace.js';
