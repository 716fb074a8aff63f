/**
 * `agate run … | head -1`: the reader leaves after the first line. The run goes on to its end
 * (its output dropped) and exits as it would have, with no EPIPE stack trace.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { builtCliBin } from './__fixtures__/built-cli.js';

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const DEMO_DIR = fileURLToPath(new URL('../../../examples/file-agent', import.meta.url));

it('a reader that closes the pipe early does not crash the run', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['AGATE_BASE_URL', 'AGATE_MODEL', 'AGATE_API_KEY', 'OPENAI_API_KEY']) {
    delete env[name];
  }
  const child = spawn(process.execPath, [BIN, 'run', 'src/demo.tsx', '--plain'], {
    cwd: DEMO_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // Like `head -1`: read the first chunk, then close the pipe.
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  expect(stderr).not.toMatch(/EPIPE|Error:|at .*\(/);
  // The demo's run completes (exit 0) whether or not anyone read its lines.
  expect(code).toBe(0);
}, 60_000);
