/**
 * Errors told apart across copies of the package: the CLI loads agents that bring their own
 * `@agate/core`, and a store package may hold another copy, so `instanceof` (which compares
 * class objects) fails where `isInstance` (which reads a `Symbol.for` marker) holds.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import * as core from '../index.js';
import { createMemoryStore } from '../persistence/session-store.js';
import { createSnapshot } from '../persistence/snapshot.js';
import { updateSession } from '../persistence/update-session.js';
import { runFault } from './fault.js';

/** A second, separately evaluated copy of the whole package (every module of it loaded again). */
async function secondCopy(): Promise<typeof core> {
  vi.resetModules();
  const copy = (await import('../index.js')) as typeof core;
  vi.resetModules();
  return copy;
}

describe('AgateError.isInstance', () => {
  it('holds for the class and its subclasses, and for nothing else', () => {
    const missing = new core.MissingApprovalKeyError('s1', 'approvalKey', 'hmac:abc', 1);
    expect(core.MissingApprovalKeyError.isInstance(missing)).toBe(true);
    expect(core.ApprovalKeyError.isInstance(missing)).toBe(true);
    expect(core.AgateError.isInstance(missing)).toBe(true);
    expect(core.SnapshotError.isInstance(missing)).toBe(false);

    const parent = new core.ApprovalKeyError('bad key');
    expect(core.ApprovalKeyError.isInstance(parent)).toBe(true);
    expect(core.MissingApprovalKeyError.isInstance(parent)).toBe(false);

    for (const other of [
      new Error('plain'),
      null,
      undefined,
      'StaleSessionError',
      { name: 'StaleSessionError', message: 'looks like one' },
      // A string key is not the registered symbol.
      { 'agate.error.StaleSessionError': true },
    ]) {
      expect(core.StaleSessionError.isInstance(other)).toBe(false);
      expect(core.AgateError.isInstance(other)).toBe(false);
    }
  });

  it('narrows the type to the class it is called on', () => {
    const error: unknown = new core.StaleSessionError('s1', 2, 3);
    if (!core.StaleSessionError.isInstance(error)) throw new Error('not narrowed');
    expect(error.actualRevision).toBe(3);
  });

  it('adds no enumerable property to an error', () => {
    const error = new core.ModelCallError('The model call failed: boom');
    expect(Object.keys(error)).toEqual(Object.keys(new core.ModelCallError('again')));
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
  });

  it('every exported error class is named as it is exported (the marker is its name)', async () => {
    const entries = [
      core,
      await import('../entries/guards.js'),
      await import('../entries/stores.js'),
      await import('../entries/internal.js'),
    ];
    const classes = entries.flatMap((entry) =>
      Object.entries(entry).filter(
        ([, value]) => typeof value === 'function' && value.prototype instanceof core.AgateError,
      ),
    );
    expect(classes.length).toBeGreaterThan(30);
    for (const [exported, value] of classes) expect(value.name).toBe(exported);
  });
});

describe('code that tells errors apart', () => {
  it('uses isInstance, never instanceof, on an Agate error class (packages and examples)', () => {
    const names = Object.entries(core)
      .filter(([, value]) => typeof value === 'function' && 'isInstance' in value)
      .map(([name]) => name);
    expect(names).toContain('StaleSessionError');
    const uses = new RegExp(`\\binstanceof\\s+(${names.join('|')})\\b`);
    const root = resolve(import.meta.dirname, '../../../..');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name === 'dist') continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name)) {
          if (uses.test(readFileSync(path, 'utf8'))) offenders.push(relative(root, path));
        }
      }
    };
    for (const dir of ['packages', 'examples']) {
      for (const pkg of readdirSync(join(root, dir))) {
        if (existsSync(join(root, dir, pkg, 'src'))) walk(join(root, dir, pkg, 'src'));
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe('two copies of @agate/core', () => {
  it('are two copies: instanceof fails across them', async () => {
    const other = await secondCopy();
    expect(other.StaleSessionError).not.toBe(core.StaleSessionError);
    expect(new other.StaleSessionError('s1', 1, 2)).not.toBeInstanceOf(core.StaleSessionError);
  });

  it('tell each other’s errors apart with isInstance, both ways, subclasses included', async () => {
    const other = await secondCopy();
    const theirs = new other.MissingApprovalKeyError('s1', 'approvalPublicKey', 'ed25519:ab', 2);
    expect(core.MissingApprovalKeyError.isInstance(theirs)).toBe(true);
    expect(core.ApprovalKeyError.isInstance(theirs)).toBe(true);
    expect(core.AgateError.isInstance(theirs)).toBe(true);
    expect(core.StaleSessionError.isInstance(theirs)).toBe(false);

    const ours = new core.StaleSessionError('s1', 1, 2);
    expect(other.StaleSessionError.isInstance(ours)).toBe(true);
    expect(other.AgateError.isInstance(ours)).toBe(true);
    expect(other.SnapshotError.isInstance(ours)).toBe(false);
  });

  it('updateSession retries on a StaleSessionError a store of the other copy throws', async () => {
    const other = await secondCopy();
    const memory = createMemoryStore();
    await memory.save(createSnapshot('s1', { note: 'first' }));
    let failures = 1;
    const store = new Proxy(memory, {
      get(target, property) {
        if (property !== 'save') return Reflect.get(target, property, target);
        return async (...args: Parameters<typeof memory.save>) => {
          if (failures-- > 0) throw new other.StaleSessionError('s1', 1, 2);
          return target.save(...args);
        };
      },
    });
    const attempts: number[] = [];
    const result = await updateSession(store, 's1', (current, attempt) => {
      attempts.push(attempt);
      if (current === undefined) throw new Error('not stored');
      return { snapshot: current, result: 'saved' };
    });
    expect(result).toBe('saved');
    expect(attempts).toEqual([0, 1]);
  });

  it('a run keeps the other copy’s error as it is, located, instead of wrapping it', async () => {
    const other = await secondCopy();
    const theirs = new other.SnapshotError('The store could not read it.');
    const { error, reason } = runFault(theirs, 3);
    expect(error).toBe(theirs);
    expect(core.RunError.isInstance(error)).toBe(false);
    expect(reason).toBe('Tick 3, store: The store could not read it.');
  });
});
