/**
 * Issue 10's `agate run` read as an outside checker would: the real bin in child processes,
 * standard output a pipe (not a terminal), scripts written here from the issue's words. Each
 * child costs about a second, so each one checks everything its run can show.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFileStore } from '@agate/core';
import { startOpenAICompatibleServer } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCliBin } from './__fixtures__/built-cli.js';

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const AGENT = fileURLToPath(new URL('./__fixtures__/notes-agent.tsx', import.meta.url));

let work: string;

function spawnAgate(args: string[], extra: Record<string, string> = {}): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of [
    'AGATE_BASE_URL',
    'AGATE_MODEL',
    'AGATE_API_KEY',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
  ]) {
    delete env[name];
  }
  return spawn(process.execPath, [BIN, ...args], { cwd: work, env: { ...env, ...extra } });
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function outcome(child: ChildProcess, onStdout?: (text: string) => void): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    onStdout?.(stdout);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function script(name: string, turns: unknown): Promise<string> {
  const path = join(work, name);
  await writeFile(path, JSON.stringify(turns));
  return path;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agate-run-acc-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('agate run, off a terminal', () => {
  it('--scripted runs offline and prints plain lines: a tool error, a refusal, completion; exit 0', async () => {
    const file = await script('finish.json', [
      { text: 'Trying the flaky tool.', toolCalls: [{ toolName: 'flaky', input: {} }] },
      'All done.',
      { toolCalls: [{ toolName: 'save_note', input: { text: 'hello' } }] },
      { text: 'Saved.', usage: { inputTokens: 120, outputTokens: 8 } },
    ]);
    const { code, stdout, stderr } = await outcome(
      spawnAgate(['run', AGENT, '--scripted', file, '--id', 'plain-1']),
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // Plain lines: no terminal control sequences (no Ink redraws, no colours).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for escape sequences
    expect(stdout).not.toMatch(/\u001b\[/);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toContain('session plain-1');
    expect(lines).toContain('── tick 1 ──');
    expect(stdout).toContain('✗ flaky: Tool "flaky" failed: the disk is full');
    expect(stdout).toMatch(/exit refused:\n\s+Gate "note-saved"/);
    expect(stdout).toContain('← save_note: Saved note 1: hello');
    expect(lines.slice(-3)[0]).toBe('status: completed');
    expect(lines.slice(-2)[0]).toBe('ticks: 4 (session total 4)');
    expect(lines.at(-1)).toMatch(/^tokens: \d+ in \+ \d+ out = \d+$/);
  });

  it('--json prints the events as JSON lines, each one parses, run:start first and run:end last; out of ticks with a deferred gate is blocked, exit 1', async () => {
    const file = await script('loop.json', {
      turns: [{ toolCalls: [{ toolName: 'flaky', input: {} }] }],
      whenExhausted: 'repeat-last',
    });
    const { code, stdout } = await outcome(
      spawnAgate(['run', AGENT, '--scripted', file, '--json', '--max-ticks', '2']),
    );
    const events = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; status?: string });
    expect(events[0]?.type).toBe('run:start');
    expect(events.at(-1)).toMatchObject({ type: 'run:end', status: 'blocked', ticks: 2 });
    expect(events.filter((e) => e.type === 'tool:result')).toHaveLength(2);
    expect(code).toBe(1);
  });

  it('SIGINT (with --json) aborts with status aborted (exit 130), the session is saved, --resume continues it', async () => {
    const store = join(work, 'store');
    const slow = await script('slow.json', [
      { toolCalls: [{ toolName: 'save_note', input: { text: 'first' } }] },
      { delayMs: 60_000, text: 'never arrives' },
    ]);
    const child = spawnAgate([
      ...['run', AGENT, '--scripted', slow, '--store', store, '--id', 'int-1', '--json'],
    ]);
    let sent = false;
    const interrupted = await outcome(child, (stdout) => {
      if (!sent && stdout.includes('"type":"tick:start","tick":2')) {
        sent = true;
        setTimeout(() => child.kill('SIGINT'), 100);
      }
    });
    expect(sent).toBe(true);
    const lines = interrupted.stdout.trimEnd().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ type: 'run:end', status: 'aborted' });
    expect(interrupted.code).toBe(130);
    expect((await readdir(store)).filter((f) => f.endsWith('.json'))).toEqual(['int-1.json']);
    const saved = await createFileStore(store).load('int-1');
    // The snapshot's state is the session's (typed unknown on the wire): the last completed tick.
    expect(saved?.state).toMatchObject({ tick: 1, status: 'aborted' });

    const rest = await script('rest.json', ['Saved the note; done.']);
    const resumed = await outcome(
      spawnAgate(['run', AGENT, '--scripted', rest, '--store', store, '--resume', 'int-1']),
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('session int-1');
    expect(resumed.stdout).toContain('── tick 2 ──');
    expect(resumed.stdout).not.toContain('── tick 1 ──');
    expect(resumed.stdout).toContain('status: completed');
    expect(resumed.stdout).toContain('ticks: 1 (session total 2)');
  });

  it('AGATE_BASE_URL + AGATE_MODEL: a real OpenAI-compatible server; plain lines read no stream, so none is asked for', async () => {
    const server = await startOpenAICompatibleServer([
      { toolCalls: [{ toolName: 'save_note', input: { text: 'over http' } }] },
      'Saved it over HTTP.',
    ]);
    try {
      const { code, stdout, stderr } = await outcome(
        spawnAgate(['run', AGENT], { AGATE_BASE_URL: server.baseURL, AGATE_MODEL: 'local-model' }),
      );
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain('← save_note: Saved note 1: over http');
      expect(stdout).toContain('model: Saved it over HTTP.');
      expect(server.requests.map((r) => [r.model, r.stream ?? false])).toEqual([
        ['local-model', false],
        ['local-model', false],
      ]);
    } finally {
      await server.close();
    }
  });

  it('OPENAI_API_KEY (with OPENAI_BASE_URL) talks to the chat completions API over HTTP', async () => {
    const server = await startOpenAICompatibleServer([
      { toolCalls: [{ toolName: 'save_note', input: { text: 'via openai' } }] },
      'Saved it.',
    ]);
    try {
      const { code, stdout, stderr } = await outcome(
        spawnAgate(['run', AGENT], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseURL }),
      );
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain('OpenAI, model "gpt-4.1-mini"');
      expect(stdout).toContain('← save_note: Saved note 1: via openai');
      expect(server.requests.map((r) => r.model)).toEqual(['gpt-4.1-mini', 'gpt-4.1-mini']);
    } finally {
      await server.close();
    }
  });

  it('a run that ends waiting for a person: exit 7, saved without a store, the approve command printed', async () => {
    const file = await script('submit.json', [
      {
        toolCalls: [
          { toolName: 'save_note', input: { text: 'hello' } },
          { toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'Saved hello.' } },
        ],
      },
    ]);
    const checkpointAgent = fileURLToPath(
      new URL('./__fixtures__/checkpoint-agent.tsx', import.meta.url),
    );
    const { code, stdout } = await outcome(
      spawnAgate(['run', checkpointAgent, '--scripted', file, '--id', 'wait-1']),
    );
    expect(code).toBe(7);
    expect(stdout).toContain('status: awaiting-approval');
    expect(stdout).toContain('agate approve wait-1 T-1');
    const saved = await createFileStore(join(work, '.agate', 'sessions')).load('wait-1');
    expect(saved?.state).toMatchObject({ status: 'awaiting-approval' });
  });

  // No model named (exit 2, one message on standard error, before anything runs): cli.test.ts
  // checks the whole message through the same bin; one process shows it.

  it("a run that ends in <Output>: a refused final answer reads as refused, the object is printed as pretty JSON, --json's run:end carries it, and agate show prints the answer the run completed with", async () => {
    const agent = fileURLToPath(new URL('./__fixtures__/verdict-agent.tsx', import.meta.url));
    const turns = fileURLToPath(new URL('./__fixtures__/verdict.json', import.meta.url));
    const store = join(work, 'verdict-store');
    const verdict = { verdict: 'request-changes', issues: ['a / 0 now returns 0 silently'] };
    // One plain run (saved, for agate show) and one --json run of the same script.
    const [plain, json] = await Promise.all([
      outcome(spawnAgate(['run', agent, '--scripted', turns, '--store', store, '--id', 'v-1'])),
      outcome(spawnAgate(['run', agent, '--scripted', turns, '--json'])),
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain(
      '  → final_answer {"verdict":"approve","issues":[]}\n  gate change-read: deferred → active (by runtime)\n  ✗ final_answer: Not accepted: Gate "change-read" was deferred, now active again (refusal 1 of 5)',
    );
    expect(plain.stdout).not.toContain('Final answer received.');
    expect(plain.stdout).toContain('← final_answer: Final answer accepted.\nstatus: completed\n');
    const indented = JSON.stringify(verdict, null, 2).replaceAll('\n', '\n  ');
    expect(plain.stdout.endsWith(`output:\n  ${indented}\n`)).toBe(true);

    expect(json.code, json.stderr).toBe(0);
    const last = JSON.parse(json.stdout.trimEnd().split('\n').at(-1) ?? '');
    expect(last).toEqual({
      type: 'run:end',
      status: 'completed',
      ticks: 3,
      output: verdict,
      path: [],
    });

    // agate show: the <Output> answer the run completed with, not the refused one before it.
    // (The real bin end to end for `show`; the other files run it in-process.)
    const shown = await outcome(spawnAgate(['show', 'v-1', '--store', store]));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.endsWith(`\noutput:\n  ${indented}\n`)).toBe(true);
    // The timeline shows each final_answer's result as the model read it, as `agate run` did.
    expect(shown.stdout).toContain('✗ final_answer: Not accepted: Gate "change-read" was deferred');
    expect(shown.stdout).toContain('← final_answer: Final answer accepted.');
    expect(shown.stdout).not.toMatch(/final_answer: (accepted|Final answer received)/);
  });
});

describe('agate run --resume on a script', () => {
  it('the printed resume command carries --scripted and the next turn; running it goes on from there, saying so', async () => {
    const store = join(work, 'resume-store');
    const turns = await script('three-turns.json', [
      { toolCalls: [{ toolName: 'save_note', input: { text: 'once' } }] },
      { toolCalls: [{ toolName: 'save_note', input: { text: 'twice' } }] },
      'Saved it twice; done.',
    ]);
    const first = await outcome(
      spawnAgate([
        ...['run', AGENT, '--scripted', turns, '--store', store, '--id', 'r-1', '--max-ticks', '1'],
      ]),
    );
    expect(first.code).toBe(1);
    const command = (turn: number) =>
      `agate run ${AGENT} --scripted ${turns} --script-turn ${turn} --store ${store} --resume r-1`;
    expect(first.stdout).toContain(`session r-1 saved; continue it with: ${command(2)}\n`);

    // The printed command, run: turn 2 only (one tick allowed), then it prints turn 3's.
    const second = await outcome(
      spawnAgate([...command(2).split(' ').slice(1), '--max-ticks', '1']),
    );
    expect(second.code, second.stderr).toBe(1);
    expect(second.stdout).toContain(
      `model: scripted model from ${turns} (offline), from turn 2 of 3 (--script-turn)\n`,
    );
    expect(second.stdout).toContain('← save_note: Saved note 1: twice');
    expect(second.stdout).not.toContain('once');
    expect(second.stdout).toContain(`continue it with: ${command(3)}\n`);

    const third = await outcome(spawnAgate(command(3).split(' ').slice(1)));
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain('  model: Saved it twice; done.\n');
    expect(third.stdout).toContain('ticks: 1 (session total 3)');

    // Past the script's end: said, not replayed.
    const past = await outcome(spawnAgate(command(4).split(' ').slice(1)));
    expect(past.code).toBe(2);
    expect(past.stderr).toContain(
      `The script ${turns} has 3 turns, and the run would start at turn 4 (--script-turn).`,
    );

    // Without --script-turn, a resumed session's script plays from its first turn, and says so.
    const fresh = await outcome(
      spawnAgate([
        'run',
        AGENT,
        '--scripted',
        turns,
        '--store',
        store,
        '--resume',
        'r-1',
        '--max-ticks',
        '1',
      ]),
    );
    expect(fresh.stdout).toContain(
      'from turn 1 of 3 (session r-1 has made 3 model calls; --script-turn 4 would go on after them)\n',
    );
  });

  it('--model and --base-url name the server in place of the environment, and the resume command carries them', async () => {
    const server = await startOpenAICompatibleServer([
      { toolCalls: [{ toolName: 'save_note', input: { text: 'over flags' } }] },
    ]);
    try {
      const store = join(work, 'flags-store');
      const run = await outcome(
        spawnAgate([
          ...['run', AGENT, '--model', 'tiny', '--base-url', server.baseURL, '--store', store],
          ...['--id', 'f-1', '--max-ticks', '1'],
        ]),
      );
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toContain(
        `model: OpenAI-compatible server at ${server.baseURL}, model "tiny"`,
      );
      expect(run.stdout).toContain(
        `continue it with: agate run ${AGENT} --model tiny --base-url ${server.baseURL} --store ${store} --resume f-1\n`,
      );
    } finally {
      await server.close();
    }
    const alone = await outcome(spawnAgate(['run', AGENT, '--model', 'tiny']));
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--model names a model (tiny) but no provider');
    const both = await outcome(
      spawnAgate(['run', AGENT, '--scripted', 'x.json', '--model', 'tiny']),
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give one of them');
  });
});
