/**
 * Issue 39 item 4: `agate run` and `agate worker` honour the standard OpenTelemetry variables
 * through the OpenTelemetry Node SDK, in their own process only. The real bin in child
 * processes; a real OTLP/HTTP receiver on 127.0.0.1 (the tests decode what arrives); a tool's
 * child process reports what it was started with.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@agate/dbos';
import { requirePostgres, startPostgres } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgateOutcome, childEnv, runAgate } from './__fixtures__/agate-process.js';
import { builtCliBin } from './__fixtures__/built-cli.js';
import { jsonSpans, type OtlpReceiver, startOtlpReceiver } from './__fixtures__/otlp-receiver.js';
import { DEFAULT_SERVICE_NAME, tracingVariables } from './run/tracing.js';

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));
const TWICE = fixture('twice-agent.tsx');
const TWICE_SCRIPT = JSON.stringify(['First answer.', 'Second answer.']);

let scratch: string;
let receiver: OtlpReceiver;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'agate-tracing-'));
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await receiver?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** `agate run <agent> --scripted <turns>` with `env` added; recorded like every CLI test run. */
async function agateRun(
  agent: string,
  turns: string,
  env: Record<string, string>,
  flags: string[] = ['--plain'],
  record = true,
): Promise<AgateOutcome> {
  const script = join(scratch, `script-${scripts++}.json`);
  writeFileSync(script, turns);
  return runAgate(process.execPath, [BIN, 'run', agent, '--scripted', script, ...flags], {
    cwd: scratch,
    scratch,
    env,
    record,
  });
}
let scripts = 0;

describe('which variables turn tracing on', () => {
  it('any of the four, set and not empty; none when the SDK is disabled or the exporter is none', () => {
    expect(tracingVariables({})).toEqual([]);
    expect(tracingVariables({ OTEL_SERVICE_NAME: '  ' })).toEqual([]);
    expect(
      tracingVariables({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'svc', PATH: '/bin' }),
    ).toEqual(['OTEL_TRACES_EXPORTER', 'OTEL_SERVICE_NAME']);
    expect(tracingVariables({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318' })).toEqual([
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    ]);
    expect(tracingVariables({ OTEL_TRACES_EXPORTER: 'none', OTEL_SERVICE_NAME: 'svc' })).toEqual(
      [],
    );
    expect(tracingVariables({ OTEL_SDK_DISABLED: 'true', OTEL_SERVICE_NAME: 'svc' })).toEqual([]);
  });
});

describe('agate run with the OpenTelemetry variables', () => {
  it('OTEL_TRACES_EXPORTER=console prints the invoke_agent, tick and chat spans, service agate', async () => {
    const run = await agateRun(TWICE, TWICE_SCRIPT, { OTEL_TRACES_EXPORTER: 'console' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain("name: 'invoke_agent Twice'");
    expect(run.stdout).toContain("name: 'agate.tick'");
    expect(run.stdout).toContain("name: 'chat scripted'");
    expect(run.stdout).toContain(`'service.name': '${DEFAULT_SERVICE_NAME}'`);
    // The run itself is printed as usual.
    expect(run.stdout).toContain('status: completed');
    expect(run.modules.some((url) => url.includes('/@opentelemetry/sdk-node/'))).toBe(true);
  });

  it('otlp: a receiver on 127.0.0.1 gets the spans, as OTLP/JSON and as the default protobuf, with OTEL_SERVICE_NAME', async () => {
    const base = {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'agate-otlp-test',
    };
    const [json, protobuf] = await Promise.all([
      agateRun(TWICE, TWICE_SCRIPT, { ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
      agateRun(TWICE, TWICE_SCRIPT, base),
    ]);
    for (const run of [json, protobuf]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
    }
    // Everything was exported before the process left (the SDK's shutdown flushes).
    const spans = jsonSpans(receiver.posts);
    const root = spans.find((span) => span.name === 'invoke_agent Twice');
    expect(root?.service).toBe('agate-otlp-test');
    const ticks = spans.filter((span) => span.name === 'agate.tick');
    expect(ticks).toHaveLength(2);
    for (const tick of ticks) expect(tick.parentSpanId).toBe(root?.spanId);
    const binary = receiver.posts.filter((post) => post.contentType === 'application/x-protobuf');
    expect(binary.length).toBeGreaterThan(0);
    const bytes = Buffer.concat(binary.map((post) => post.body));
    for (const text of ['invoke_agent Twice', 'agate.tick', 'agate-otlp-test']) {
      expect(bytes.includes(Buffer.from(text)), text).toBe(true);
    }
  });

  it("injects nothing into a tool's child process: no NODE_OPTIONS, no preload, no SDK", async () => {
    const run = await agateRun(
      fixture('child-process-agent.tsx'),
      JSON.stringify([{ toolCalls: [{ toolName: 'child_process', input: {} }] }, 'Reported.']),
      {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'agate-child-test',
      },
      ['--json'],
      false,
    );
    expect(run.code, run.stderr).toBe(0);
    const result = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; output?: unknown })
      .find((event) => event.type === 'tool:result');
    // The child gets the environment the CLI was given, with nothing of the SDK added to it.
    const report = JSON.parse(String(result?.output)) as Record<string, unknown>;
    expect(report.preloads).toEqual([]);
    expect(report.nodeOptions).toBeNull();
    expect(report.otelVariables).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_SERVICE_NAME',
      'OTEL_TRACES_EXPORTER',
    ]);
    expect(report.otelRegistered).toBe(false);
    // …while the CLI's own process was traced.
    expect(jsonSpans(receiver.posts).some((span) => span.service === 'agate-child-test')).toBe(
      true,
    );
  });
});

describe.skipIf(!requirePostgres('agate worker with OTEL_* (@agate/dbos)'))(
  'agate worker with the OpenTelemetry variables',
  () => {
    it('exports the spans of the durable runs it executes to the OTLP receiver', async () => {
      const pg = await startPostgres();
      const worker = spawn(
        process.execPath,
        [
          BIN,
          'worker',
          fixture('durable-agents.tsx'),
          '--store',
          pg.url,
          '--executor-id',
          'otel-w',
        ],
        {
          cwd: scratch,
          env: childEnv({
            OTEL_TRACES_EXPORTER: 'otlp',
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_SERVICE_NAME: 'agate-worker-test',
          }),
        },
      );
      let stdout = '';
      let stderr = '';
      worker.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      worker.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = new Promise<number | null>((resolve) => worker.on('close', resolve));
      const client = await createClient({ databaseUrl: pg.url });
      try {
        await expect.poll(() => stdout, { timeout: 30_000 }).toContain('running greeter');
        const handle = await client.startRun({
          agent: 'greeter',
          sessionId: 'otel-greet',
          input: { name: 'Ada' },
        });
        expect(await handle.result({ timeoutMs: 30_000 })).toMatchObject({ status: 'completed' });
      } finally {
        await client.close();
        worker.kill('SIGTERM');
        expect(await exited, stderr).toBe(0);
        await pg.stop();
      }
      const spans = jsonSpans(receiver.posts).filter((s) => s.service === 'agate-worker-test');
      expect(spans.some((span) => span.name.startsWith('invoke_agent'))).toBe(true);
      expect(spans.some((span) => span.name === 'chat scripted')).toBe(true);
    }, 90_000);
  },
);
