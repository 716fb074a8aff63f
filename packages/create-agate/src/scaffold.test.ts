import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { DURABLE_THIRD_PARTY } from './durable-template.js';
import { main } from './main.js';
import { packageName, ScaffoldError, scaffold, tarballName } from './scaffold.js';
import { TEMPLATE_NAMES, THIRD_PARTY } from './templates.js';
import { VERSION } from './version.js';

const dirs: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'create-agate-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
};

describe('scaffold', () => {
  it('writes an ESM project depending on this version of Agate', async () => {
    const dir = join(temp(), 'My Agent');
    const result = await scaffold(dir);
    expect(result.name).toBe('my-agent');
    expect(result.files.sort()).toEqual(
      [
        '.env.example',
        '.gitignore',
        'README.md',
        'agent.test.tsx',
        'agent.tsx',
        'model.test.tsx',
        'model.ts',
        'package.json',
        'run.tsx',
        'script.json',
        'tsconfig.json',
      ].sort(),
    );
    const written = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(written).toMatchObject({
      name: 'my-agent',
      type: 'module',
      scripts: { test: 'vitest run', typecheck: 'tsc --noEmit' },
      dependencies: { '@agate/core': `^${VERSION}`, '@agate/cli': `^${VERSION}` },
      devDependencies: { '@agate/testing': `^${VERSION}` },
    });
    // TypeScript 5 pinned: an unpinned install brings the native 7.x, which has no JS API.
    expect(written.devDependencies.typescript).toMatch(/^\^5\./);
    const { compilerOptions } = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'));
    expect(compilerOptions).toMatchObject({ jsx: 'react-jsx', jsxImportSource: '@agate/core' });
    const env = readFileSync(join(dir, '.env.example'), 'utf8');
    expect(env).toMatch(/AGATE_BASE_URL=.*\n.*AGATE_MODEL=/);
    expect(env).toContain('OPENAI_API_KEY=');
    expect(readFileSync(join(dir, '.gitignore'), 'utf8').split('\n')).toContain('.env');
  });

  it('refuses a directory with files in it, and overwrites nothing', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'agent.tsx'), 'mine');
    await expect(scaffold(dir)).rejects.toThrow(ScaffoldError);
    await expect(scaffold(dir)).rejects.toThrow(/is not empty .*create-agate my-agent/);
    expect(readFileSync(join(dir, 'agent.tsx'), 'utf8')).toBe('mine');
  });

  it('makes package names npm accepts', () => {
    expect(packageName('Hello World!')).toBe('hello-world');
    expect(packageName('.hidden')).toBe('hidden');
    expect(packageName('---')).toBe('my-agent');
  });

  it("its version is the package's", () => {
    expect(VERSION).toBe(pkg.version);
  });
});

describe('create-agate', () => {
  it('prints what to type next', async () => {
    const cwd = temp();
    const { io, out } = capture();
    expect(await main([join(cwd, 'bot'), '--name', 'bot'], io)).toBe(0);
    expect(out.join('')).toMatch(
      /npm install\n {2}npm test\n {2}npx agate run agent.tsx --scripted script.json/,
    );
  });

  it('says what is wrong and what to type, with exit code 2 for usage', async () => {
    const { io, err } = capture();
    expect(await main([], io)).toBe(2);
    expect(err.join('')).toContain('npm create agate@latest my-agent');
    expect(await main(['x', '--bogus'], io)).toBe(2);
    expect(err.join('')).toContain('create-agate --help');
  });
});

describe('create-agate --from <tarballs>', () => {
  /** A folder holding (empty stand-ins for) the tarballs `pnpm pack:all` writes. */
  const packedFolder = (names = ['@agate/core', '@agate/cli', '@agate/testing']) => {
    const dir = temp();
    for (const name of names) writeFileSync(join(dir, tarballName(name, VERSION)), '');
    return dir;
  };

  it('names the tarballs as npm pack does', () => {
    expect(tarballName('@agate/core', '0.1.0')).toBe('agate-core-0.1.0.tgz');
    expect(tarballName('create-agate', '1.2.3')).toBe('create-agate-1.2.3.tgz');
  });

  it('writes file: dependencies on the tarballs of its own version, and says so in the README', async () => {
    const packed = packedFolder();
    const dir = join(temp(), 'bot');
    const { io, out } = capture();
    expect(await main([dir, '--from', packed], io)).toBe(0);
    expect(out.join('')).toContain('npm install');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    // Relative to the project (both are under one temporary folder here): no absolute path.
    const from = relative(dir, packed);
    expect(from.startsWith('..')).toBe(true);
    expect(pkg.dependencies['@agate/core']).toBe(`file:${from}/agate-core-${VERSION}.tgz`);
    expect(pkg.dependencies['@agate/cli']).toBe(`file:${from}/agate-cli-${VERSION}.tgz`);
    expect(pkg.devDependencies['@agate/testing']).toBe(`file:${from}/agate-testing-${VERSION}.tgz`);
    expect(JSON.stringify(pkg)).not.toContain(tmpdir());
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('installed from the tarballs');
  });

  it('refuses a folder without them before writing anything, naming what is missing and where it comes from', async () => {
    const packed = packedFolder(['@agate/core']);
    const dir = join(temp(), 'bot');
    const { io, err } = capture();
    expect(await main([dir, `--from=${packed}`], io)).toBe(1);
    expect(err.join('')).toContain(`agate-cli-${VERSION}.tgz, agate-testing-${VERSION}.tgz`);
    expect(err.join('')).toContain('pnpm pack:all');
    expect(existsSync(dir)).toBe(false);
    expect(await main([dir, '--from', join(packed, 'nowhere')], io)).toBe(1);
    expect(err.join('')).toContain('there is no folder');
  });
});

describe('create-agate --template <name>', () => {
  it('writes the default project for --template default, as without the option', async () => {
    const cwd = temp();
    const { io } = capture();
    expect(await main([join(cwd, 'a'), '--template', 'default', '--name', 'x'], io)).toBe(0);
    expect(await main([join(cwd, 'b'), '--name', 'x'], io)).toBe(0);
    for (const file of ['package.json', 'agent.tsx', 'README.md', '.env.example']) {
      expect(readFileSync(join(cwd, 'a', file), 'utf8'), file).toBe(
        readFileSync(join(cwd, 'b', file), 'utf8'),
      );
    }
  });

  it('refuses an unknown template, listing the names, before writing anything (exit 1)', async () => {
    const dir = join(temp(), 'bot');
    const { io, err } = capture();
    expect(await main([dir, '--template', 'chatbot'], io)).toBe(1);
    expect(err.join('')).toContain(
      `there is no template "chatbot". The templates are: ${TEMPLATE_NAMES.join(', ')}`,
    );
    expect(existsSync(dir)).toBe(false);
    expect(await main([dir, '--template='], io)).toBe(2);
    expect(err.join('')).toContain('--template needs a template name: default');
  });

  it('writes the coding project: a sandboxed bash agent, its workspace with the bug, deps pinned like the default', async () => {
    const cwd = temp();
    const { io, out } = capture();
    expect(await main([join(cwd, 'coder'), '--template', 'coding'], io)).toBe(0);
    expect(out.join('')).toMatch(/npm test\n {2}npm run demo\n/);
    const dir = join(cwd, 'coder');
    for (const file of [
      'package.json',
      'tsconfig.json',
      'agent.tsx',
      'agent.test.tsx',
      'workspace.ts',
      'workspace/math.js',
      'workspace/test/math.js',
      'script.json',
      'README.md',
      '.gitignore',
      '.env.example',
    ]) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    const agent = readFileSync(join(dir, 'agent.tsx'), 'utf8');
    for (const component of ['<Shell', '<CommandGate', '<PhaseGates']) {
      expect(agent).toContain(component);
    }
    const coding = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(coding.scripts).toMatchObject({
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
      demo: 'node workspace.ts && agate run agent.tsx --scripted script.json',
    });
    // The same pinned versions as the default project (one packed lock serves both).
    await scaffold(join(cwd, 'plain'));
    const plain = JSON.parse(readFileSync(join(cwd, 'plain', 'package.json'), 'utf8'));
    expect(coding.dependencies).toEqual(plain.dependencies);
    expect(coding.devDependencies).toEqual(plain.devDependencies);
    expect(coding.devDependencies.typescript).toMatch(/^\^5\./);
    expect(readFileSync(join(dir, '.env.example'), 'utf8')).toContain('AGATE_BASE_URL=');
    // vitest (`*.test.*`) must not pick up the workspace's node --test file.
    expect(readFileSync(join(dir, 'workspace/test/math.js'), 'utf8')).toContain("from 'node:test'");
    const { compilerOptions } = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'));
    expect(compilerOptions).toMatchObject({
      jsxImportSource: '@agate/core',
      resolveJsonModule: true,
    });
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('bubblewrap');
  });

  it('writes the coding project with --from tarballs, relative paths', async () => {
    const packed = temp();
    for (const name of ['@agate/core', '@agate/cli', '@agate/testing']) {
      writeFileSync(join(packed, tarballName(name, VERSION)), '');
    }
    const dir = join(temp(), 'coder');
    await scaffold(dir, { template: 'coding', from: packed });
    const written = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(written.dependencies['@agate/core']).toBe(
      `file:${relative(dir, packed)}/agate-core-${VERSION}.tgz`,
    );
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('installed from the tarballs');
  });

  it('writes the durable project: a worker on PostgreSQL, its client and demo, deps pinned like the default plus @agate/dbos', async () => {
    const cwd = temp();
    const { io, out } = capture();
    expect(await main([join(cwd, 'desk'), '--template', 'durable'], io)).toBe(0);
    // `agate db create` before anything that needs the database.
    expect(out.join('')).toMatch(
      /npm install\n.*\.env.*\n {2}npm run db:create\n {2}npm test\n {2}npm run demo\n/,
    );
    const dir = join(cwd, 'desk');
    for (const file of [
      'package.json',
      'tsconfig.json',
      'agent.tsx',
      'agent.test.tsx',
      'model.ts',
      'demo-model.ts',
      'ask.ts',
      'demo.ts',
      'README.md',
      '.gitignore',
      '.env.example',
    ]) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    const durable = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(durable.scripts).toMatchObject({
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
      'db:create': expect.stringMatching(/agate\.js db create$/),
      start: expect.stringMatching(/agate\.js worker agent\.tsx$/),
      demo: 'node --env-file-if-exists=.env demo.ts',
    });
    // The default project's pins, and what a worker needs beside them: nothing else.
    await scaffold(join(cwd, 'plain'));
    const plain = JSON.parse(readFileSync(join(cwd, 'plain', 'package.json'), 'utf8'));
    expect(durable.devDependencies).toEqual(plain.devDependencies);
    expect(durable.dependencies).toEqual({
      ...plain.dependencies,
      '@agate/dbos': `^${VERSION}`,
      '@agate/postgres': `^${VERSION}`,
      '@ai-sdk/openai': DURABLE_THIRD_PARTY['@ai-sdk/openai'],
    });
    // Exact, as `ai` is: a range could bring a second @ai-sdk/provider.
    expect(durable.dependencies['@ai-sdk/openai']).toMatch(/^\d+\.\d+\.\d+$/);
    const env = readFileSync(join(dir, '.env.example'), 'utf8');
    expect(env).toMatch(/^DATABASE_URL=postgres:\/\//m);
    expect(env).toContain('AGATE_BASE_URL=');
    expect(env).toContain('OPENAI_API_KEY=');
    const agent = readFileSync(join(dir, 'agent.tsx'), 'utf8');
    expect(agent).toContain('export const agents: DurableAgents');
    expect(agent).toContain('toolCallId');
    expect(readFileSync(join(dir, 'model.ts'), 'utf8')).toContain("from '@ai-sdk/openai'");
    // @agate/testing (a dev dependency) is loaded only for the offline model.
    expect(agent).not.toContain('@agate/testing');
    const { compilerOptions } = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'));
    expect(compilerOptions).toMatchObject({
      jsxImportSource: '@agate/core',
      allowImportingTsExtensions: true,
      erasableSyntaxOnly: true,
    });
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme.indexOf('npm run db:create')).toBeGreaterThan(-1);
    expect(readme.indexOf('npm run db:create')).toBeLessThan(readme.indexOf('npm run demo'));
  });

  it('writes the durable project with --from only when the folder has @agate/dbos and @agate/postgres too', async () => {
    const packed = temp();
    for (const name of ['@agate/core', '@agate/cli', '@agate/testing']) {
      writeFileSync(join(packed, tarballName(name, VERSION)), '');
    }
    const dir = join(temp(), 'desk');
    await expect(scaffold(dir, { template: 'durable', from: packed })).rejects.toThrow(
      `has no agate-dbos-${VERSION}.tgz, agate-postgres-${VERSION}.tgz`,
    );
    expect(existsSync(dir)).toBe(false);
    for (const name of ['@agate/dbos', '@agate/postgres']) {
      writeFileSync(join(packed, tarballName(name, VERSION)), '');
    }
    await scaffold(dir, { template: 'durable', from: packed });
    const written = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(written.dependencies['@agate/dbos']).toBe(
      `file:${relative(dir, packed)}/agate-dbos-${VERSION}.tgz`,
    );
    expect(written.dependencies['@agate/postgres']).toBe(
      `file:${relative(dir, packed)}/agate-postgres-${VERSION}.tgz`,
    );
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('installed from the tarballs');
    // The default project still needs only its three.
    const plain = join(temp(), 'plain');
    await scaffold(plain, { from: packed });
    expect(
      JSON.parse(readFileSync(join(plain, 'package.json'), 'utf8')).dependencies,
    ).not.toHaveProperty('@agate/dbos');
  });

  it('writes the chat project: a useChat page, a server with openChatSession, approvals in the page', async () => {
    const cwd = temp();
    const { io, out } = capture();
    expect(await main([join(cwd, 'shop'), '--template', 'chat'], io)).toBe(0);
    expect(out.join('')).toMatch(/npm test\n {2}npm run demo\n/);
    const dir = join(cwd, 'shop');
    const read = (file: string) => readFileSync(join(dir, file), 'utf8');
    expect(
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f !== 'page')
        .sort(),
    ).toEqual(
      [
        '.env.example',
        '.gitignore',
        'README.md',
        'agent.tsx',
        'chat-client.ts',
        'demo.ts',
        'model.test.tsx',
        'model.ts',
        'offline-model.ts',
        'package.json',
        'page/app.tsx',
        'server.test.ts',
        'server.ts',
        'tsconfig.json',
      ].sort(),
    );
    // Refunds are held for a person; the page answers them with useChat's own approval call.
    expect(read('agent.tsx')).toMatch(/name="refund_order"[\s\S]*needsApproval/);
    expect(read('server.ts')).toMatch(
      /openChatSession\([\s\S]*owner, toolApprovals: \{ by: owner \}/,
    );
    expect(read('server.ts')).toContain("'127.0.0.1'");
    const page = read('page/app.tsx');
    expect(page.startsWith('/** @jsxImportSource react */')).toBe(true);
    expect(page).toContain('useChat<AgateUIMessage>');
    expect(page).toContain('addToolApprovalResponse');
    // The test talks to the server over HTTP with the AI SDK's own chat transport.
    expect(read('chat-client.ts')).toContain('new DefaultChatTransport');
    expect(read('server.test.ts')).toContain('startChatServer');

    const chat = JSON.parse(read('package.json'));
    expect(chat.scripts).toMatchObject({
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
      start: 'tsx server.ts',
      demo: 'tsx demo.ts',
    });
    // The default project's dependencies, pinned alike, plus what the page needs.
    await scaffold(join(cwd, 'plain'));
    const plain = JSON.parse(readFileSync(join(cwd, 'plain', 'package.json'), 'utf8'));
    expect(chat.dependencies).toEqual({
      ...plain.dependencies,
      '@ai-sdk/react': THIRD_PARTY['@ai-sdk/react'],
      esbuild: THIRD_PARTY.esbuild,
      'react-dom': THIRD_PARTY['react-dom'],
    });
    expect(chat.devDependencies).toEqual({
      ...plain.devDependencies,
      '@types/react-dom': THIRD_PARTY['@types/react-dom'],
    });
    // Exact, as `ai`: each pins @ai-sdk/provider-utils exactly, so a range could install two.
    expect(chat.dependencies['@ai-sdk/react']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(Object.keys(chat.dependencies)).toEqual(Object.keys(chat.dependencies).sort());
    const { compilerOptions } = JSON.parse(read('tsconfig.json'));
    expect(compilerOptions).toMatchObject({ jsxImportSource: '@agate/core' });
    expect(compilerOptions.lib).toContain('DOM');
    expect(read('README.md')).toMatch(/^# shop\n/);
    expect(read('README.md')).toContain('Approve / Deny');
    expect(read('README.md')).not.toContain('installed from the tarballs');
  });

  it('writes the chat project with --from tarballs, relative paths', async () => {
    const packed = temp();
    for (const name of ['@agate/core', '@agate/cli', '@agate/testing']) {
      writeFileSync(join(packed, tarballName(name, VERSION)), '');
    }
    const dir = join(temp(), 'shop');
    await scaffold(dir, { template: 'chat', from: packed });
    const written = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(written.devDependencies['@agate/testing']).toBe(
      `file:${relative(dir, packed)}/agate-testing-${VERSION}.tgz`,
    );
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('installed from the tarballs');
  });

  it('every template carries the two real model routes: model.ts, its test, .env.example, the providers pinned', async () => {
    const cwd = temp();
    const written = await Promise.all(
      TEMPLATE_NAMES.map((template) => scaffold(join(cwd, template), { template })),
    );
    const read = (template: string, file: string) =>
      readFileSync(join(cwd, template, file), 'utf8');
    for (const { template, files } of written) {
      expect(files, template).toEqual(
        expect.arrayContaining(['model.ts', '.env.example', 'README.md']),
      );
      const env = read(template, '.env.example');
      if (template === 'durable') {
        // The worker's model.ts is its own (its offline model answers from the request alone,
        // as a replay needs); the same two routes, through @ai-sdk/openai, tested by agent.test.tsx.
        expect(read(template, 'model.ts')).toContain("from '@ai-sdk/openai'");
        expect(read(template, 'model.ts')).toContain('AGATE_BASE_URL');
        expect(env).toContain('AGATE_BASE_URL=');
        expect(env).toContain('OPENAI_API_KEY=');
      } else {
        expect(files, template).toContain('model.test.tsx');
        expect(read(template, 'model.ts'), template).toBe(read('default', 'model.ts'));
        expect(env, template).toMatch(/# AGATE_BASE_URL=.*\n# AGATE_MODEL=/);
        expect(env, template).toContain('# OPENAI_API_KEY=');
      }
      expect(env, template).toContain('@ai-sdk/openai');
      const readme = read(template, 'README.md');
      expect(readme, template).toContain('@ai-sdk/openai');
      expect(readme, template).toContain('AGATE_BASE_URL');
      const pkg = JSON.parse(read(template, 'package.json'));
      expect(pkg.dependencies['@ai-sdk/openai'], template).toBe(THIRD_PARTY['@ai-sdk/openai']);
      expect(pkg.dependencies['@ai-sdk/openai-compatible'], template).toBe(
        THIRD_PARTY['@ai-sdk/openai-compatible'],
      );
      expect(pkg.scripts.typecheck, template).toBe('tsc --noEmit');
    }
    const model = read('default', 'model.ts');
    expect(model).toContain("from '@ai-sdk/openai'");
    expect(model).toContain("from '@ai-sdk/openai-compatible'");
    // The other templates run the agent in a program of their own on the same routes.
    for (const template of ['default', 'coding']) {
      expect(JSON.parse(read(template, 'package.json')).scripts['start:sdk']).toBe('tsx run.tsx');
      expect(read(template, 'run.tsx')).toContain('modelFromEnv(process.env)');
    }
  });

  it('names the tarball route beside the registry in its hints (404 until the first release)', async () => {
    const { io, err } = capture();
    expect(await main([], io)).toBe(2);
    expect(err.join('')).toContain('pnpm create-agate ../my-agent --from packed');
  });
});

describe('create-agate arguments (node:util parseArgs)', () => {
  it('takes --name=value as well as --name value', async () => {
    const cwd = temp();
    const { io } = capture();
    expect(await main([join(cwd, 'a'), '--name=first-bot'], io)).toBe(0);
    expect(JSON.parse(readFileSync(join(cwd, 'a', 'package.json'), 'utf8')).name).toBe('first-bot');
  });

  it('says what an option without its value needs, and rejects a second directory (exit 2)', async () => {
    const { io, err } = capture();
    expect(await main(['x', '--name'], io)).toBe(2);
    expect(err.join('')).toContain('--name needs a package name, e.g. --name my-agent');
    expect(await main(['x', '--from='], io)).toBe(2);
    expect(err.join('')).toContain('--from needs a folder of tarballs');
    expect(await main(['x', 'y'], io)).toBe(2);
    expect(err.join('')).toContain('give one directory, not 2 (x, y)');
  });

  it('prints its usage and its version', async () => {
    const { io, out } = capture();
    expect(await main(['--help'], io)).toBe(0);
    expect(out.join('')).toContain('--from <tarball-folder>');
    expect(await main(['-v'], io)).toBe(0);
    expect(out.at(-1)).toBe(`${VERSION}\n`);
  });
});
