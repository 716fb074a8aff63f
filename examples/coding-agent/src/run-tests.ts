// The test runner is shared with the todo agent; it lives in the examples' kit.
export { runNodeTests, type TestRun } from '@agate/example-kit';
