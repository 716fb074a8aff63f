import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { requireSystem } from '../../testing/src/system-requirements.js';
import { runInProject as run } from './__fixtures__/run-in-project.js';
import { scaffold } from './scaffold.js';

/**
 * The further templates (coding, chat) on the packed packages and the project installed from
 * them by release/packed.setup.ts. A file of their own beside packed-install.test.ts, so the
 * two run side by side: they share the setup's one install and write only folders of their own.
 */
const { dir: packedDir, project: installed, scratch: root } = inject('packedRun');
const project = installed.dir;
const chatProject = installed.chatDir;

/** The coding template's agent runs bash and its tests in bubblewrap. */
const sandboxRuns = requireSystem({
  tests: "the coding template's demo",
  needs: 'bubblewrap (bwrap) with user namespaces',
  enable: 'apt-get install -y bubblewrap',
  debianPackage: 'bubblewrap',
  command: 'bwrap',
  probe: () =>
    spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0,
});

/**
 * Issue 50 item 2: each further template's project type-checks, passes its tests and runs its
 * demo offline on the packed packages. Its dependencies are the default project's (the
 * scaffold test pins that), so it runs on that project's one `npm ci`: its `node_modules` is a
 * link to the default's, which adds no install to the run.
 */
describe('the coding template, on the same install', () => {
  const coding = join(root, 'coding-template');
  beforeAll(async () => {
    rmSync(coding, { recursive: true, force: true });
    await scaffold(coding, { template: 'coding', from: packedDir });
    symlinkSync(join(project, 'node_modules'), join(coding, 'node_modules'), 'dir');
  });

  it('has the dependencies the default project was installed with', () => {
    const deps = (dir: string) => {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      return { ...pkg.dependencies, ...pkg.devDependencies };
    };
    expect(deps(coding)).toEqual(deps(project));
  });

  it('npm run typecheck passes', () => {
    const check = run('npm', ['run', 'typecheck'], { cwd: coding });
    expect(check.status, `${check.stdout}\n${check.stderr}`).toBe(0);
  }, 120_000);

  it('npm test passes (both tests when bubblewrap runs, the refusal without it otherwise)', () => {
    const test = run('npm', ['test'], { cwd: coding });
    expect(test.status, `${test.stdout}\n${test.stderr}`).toBe(0);
    // agent.test.tsx's (1 without bubblewrap), model.test.tsx's 5.
    expect(test.stdout).toMatch(sandboxRuns ? /7 passed/ : /6 passed/);
  }, 90_000);

  it.runIf(sandboxRuns)(
    'npm run demo: the "Done" before the fix refused by the host\'s test run, then completed',
    () => {
      const demo = run('npm', ['run', 'demo'], { cwd: coding });
      expect(demo.status, `${demo.stdout}\n${demo.stderr}`).toBe(0);
      expect(demo.stdout).toMatch(
        /exit refused:\s+Command gate "tests" \(refusal 1 of 3\): the host ran `node --test` failed[\s\S]*status: completed/,
      );
      // The demo resets the workspace first: a second run shows the same refusal.
      const again = run('npm', ['run', 'demo'], { cwd: coding });
      expect(again.stdout).toMatch(/exit refused:[\s\S]*status: completed/);
    },
    90_000,
  );
});

/**
 * Issue 50 item 2: the `chat` template's project, installed with `npm ci` from its own lock
 * (its page adds @ai-sdk/react, react-dom and esbuild to the default's dependencies).
 */
describe('the chat template, installed from the tarballs', () => {
  it("has the default project's dependencies and what its page needs", () => {
    const pkg = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const chat = pkg(chatProject);
    const plain = pkg(project);
    expect(Object.keys(chat.dependencies).sort()).toEqual(
      [...Object.keys(plain.dependencies), '@ai-sdk/react', 'esbuild', 'react-dom'].sort(),
    );
    expect(Object.keys(chat.devDependencies).sort()).toEqual(
      [...Object.keys(plain.devDependencies), '@types/react-dom'].sort(),
    );
    expect(chat.dependencies['@agate/core']).toBe(plain.dependencies['@agate/core']);
  });

  it("npm run typecheck passes (agent files on Agate's JSX namespace, the page on React's)", () => {
    const check = run('npm', ['run', 'typecheck'], { cwd: chatProject });
    expect(check.status, `${check.stdout}\n${check.stderr}`).toBe(0);
  }, 120_000);

  it('npm test passes: the server over HTTP on 127.0.0.1, the model routes', () => {
    const test = run('npm', ['test'], { cwd: chatProject });
    expect(test.status, `${test.stdout}\n${test.stderr}`).toBe(0);
    expect(test.stdout).toMatch(/9 passed/);
  }, 120_000);

  it('npm run demo: offline, the refund held, approved over HTTP, done', () => {
    const demo = run('npm', ['run', 'demo'], { cwd: chatProject });
    expect(demo.status, `${demo.stdout}\n${demo.stderr}`).toBe(0);
    expect(demo.stdout).toMatch(
      /refund_order \{"orderId":"1042","reason":"arrived broken"\}: waiting for your approval[\s\S]*\(run awaiting-approval\)/,
    );
    expect(demo.stdout).toContain('→ "Refunded 39.00 for order 1042."');
    expect(demo.stdout).toContain('Order 1042 is now refunded.');
  }, 90_000);
});
