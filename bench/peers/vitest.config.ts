import { defineConfig } from 'vitest/config';

// The peers harness's own test (`pnpm --filter @agate/bench-peers test`); the root test command
// does not run it, nor the bench.
export default defineConfig({
  resolve: { conditions: ['@agate/source'] },
  ssr: { resolve: { conditions: ['@agate/source'] } },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    env: { MASTRA_TELEMETRY_DISABLED: '1', LANGSMITH_TRACING: 'false' },
  },
});
