import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Placeholder } from './host-run-files.js';
import { holdPlaceholders } from './placeholders.js';

const base = mkdtempSync(join(tmpdir(), 'agate-placeholders-test-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
function folder(): string {
  const dir = join(base, `f${n++}`);
  mkdirSync(dir);
  return dir;
}

const file = (dir: string, name: string, content = ''): Placeholder => ({
  path: join(dir, name),
  kind: 'file',
  content,
});
const dir = (parent: string, name: string): Placeholder => ({
  path: join(parent, name),
  kind: 'dir',
  content: '',
});

const hold = (placeholders: Placeholder[], readOnly: string[] = []) =>
  holdPlaceholders(() => ({ placeholders, readOnly }));

/** As a command plans under the lock: what is absent gets a placeholder, what is there is bound. */
const holdAsPlanned = (wanted: Placeholder[]) =>
  holdPlaceholders(() => ({
    placeholders: wanted.filter((p) => !existsSync(p.path)),
    readOnly: wanted.filter((p) => existsSync(p.path)).map((p) => p.path),
  }));

/** Another process holding placeholders of `paths` until it is killed (a real holder, not a record). */
function holderProcess(placeholders: Placeholder[]): Promise<ChildProcess> {
  const module = fileURLToPath(new URL('./placeholders.ts', import.meta.url));
  const script = `import { holdPlaceholders } from ${JSON.stringify(module)};
await holdPlaceholders(() => ({ placeholders: ${JSON.stringify(placeholders)}, readOnly: [] }));
process.stdout.write('held\\n');
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      if (text.includes('held')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
}

describe('placeholders', () => {
  it('are made for a command and removed after it', async () => {
    const root = folder();
    const held = await hold([
      file(root, '.bashrc'),
      dir(root, '.git'),
      file(root, 'commondir', '.\n'),
    ]);
    expect(readdirSync(root).sort()).toEqual(['.bashrc', '.git', 'commondir']);
    expect(readFileSync(join(root, 'commondir'), 'utf8')).toBe('.\n');
    expect([...held.paths].sort()).toEqual(
      [join(root, '.bashrc'), join(root, '.git'), join(root, 'commondir')].sort(),
    );
    await held.release();
    expect(readdirSync(root)).toEqual([]);
  });

  it('stay while another command of this process holds them, found in place or made', async () => {
    const root = folder();
    const first = await hold([file(root, '.zshrc')]);
    // The second command's plan saw the file already there: it binds it, so it holds it too.
    const second = await hold([], [join(root, '.zshrc')]);
    expect(second.paths).toEqual([join(root, '.zshrc')]);
    await first.release();
    expect(existsSync(join(root, '.zshrc'))).toBe(true);
    await second.release();
    expect(existsSync(join(root, '.zshrc'))).toBe(false);
  });

  it('survive many commands at once, and all go when the last lets go', async () => {
    const root = folder();
    const list = [file(root, '.profile'), dir(root, '.idea')];
    const holds = await Promise.all(Array.from({ length: 16 }, () => holdAsPlanned(list)));
    for (const h of holds) expect([...h.paths].sort()).toEqual(list.map((p) => p.path).sort());
    await Promise.all(holds.slice(0, 15).map((h) => h.release()));
    expect(readdirSync(root).sort()).toEqual(['.idea', '.profile']);
    await holds[15]!.release();
    expect(readdirSync(root)).toEqual([]);
  });

  it('are left alone once something was put in them, and never replace a real file', async () => {
    const root = folder();
    writeFileSync(join(root, '.gitconfig'), '[user]\n\tname = ana\n');
    const held = await hold([file(root, '.gitconfig'), dir(root, '.vscode')]);
    expect(held.paths).toEqual([join(root, '.vscode')]);
    // The host (not the command: it sees them read-only) writes into one meanwhile.
    writeFileSync(join(root, '.vscode', 'settings.json'), '{}');
    await held.release();
    expect(readFileSync(join(root, '.gitconfig'), 'utf8')).toBe('[user]\n\tname = ana\n');
    expect(existsSync(join(root, '.vscode', 'settings.json'))).toBe(true);
  });

  it('stay while another process holds them, and go after it dies without letting go', async () => {
    const root = folder();
    const list = [file(root, '.mcp.json')];
    const other = await holderProcess(list);
    const mine = await hold([], [join(root, '.mcp.json')]);
    await mine.release();
    expect(existsSync(join(root, '.mcp.json'))).toBe(true);
    other.kill('SIGKILL');
    await new Promise((resolve) => other.on('exit', resolve));
    // The dead holder's placeholder goes with the next command anywhere, this folder or not.
    const elsewhere = await hold([file(folder(), '.zshrc')]);
    expect(existsSync(join(root, '.mcp.json'))).toBe(false);
    await elsewhere.release();
  }, 30_000);
});
