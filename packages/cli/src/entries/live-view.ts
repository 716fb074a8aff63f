/**
 * `@agate/cli/live-view`: the Ink component of a run's live view, for embedding it in a
 * terminal program of your own. Its own entry because it imports `ink`, which the published
 * CLI does not depend on (the `agate` command carries the bundled copy it runs): install `ink`
 * beside `@agate/cli` to use it. The main entry stays importable without it.
 */
export { RunView } from '../view/live-view.js';
export type { RunViewState } from '../view/view-state.js';
