import {
  BUILT_CLI_ENV,
  buildCli,
  SOURCE_CLI_ENV,
} from './packages/cli/src/__fixtures__/built-cli.js';

/**
 * Once per run, before the test files: the CLI built for the tests that start it as a child
 * process (packages/cli/src/__fixtures__/built-cli.ts), or found in its cache when the sources
 * have not changed. The workers inherit its path; a file run without this setup builds it on
 * demand.
 */
export default function setup(): void {
  if (process.env[SOURCE_CLI_ENV] === '1') return;
  const started = performance.now();
  process.env[BUILT_CLI_ENV] = buildCli();
  const seconds = (performance.now() - started) / 1000;
  if (seconds > 1) process.stdout.write(`built the CLI for the tests in ${seconds.toFixed(1)} s\n`);
}
