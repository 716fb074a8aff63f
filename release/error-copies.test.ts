import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import * as source from '../packages/core/src/index.js';

/**
 * Errors told apart across two copies of `@agate/core`: the repository's source and the built
 * copy a project installed from the tarball, loaded side by side in one process (what happens
 * when the CLI runs an agent that brings its own core). `isInstance` holds across them both
 * ways, subclasses included, where `instanceof` does not; and the build keeps every error
 * class's name, which its marker is made from.
 */
const { project } = inject('packedRun');
const built = (await import(
  pathToFileURL(join(project.dir, 'node_modules/@agate/core/dist/index.js')).href
)) as typeof source;

describe('the source and the built @agate/core', () => {
  it('are two copies', () => {
    expect(built.StaleSessionError).not.toBe(source.StaleSessionError);
    expect(new built.StaleSessionError('s1', 1, 2)).not.toBeInstanceOf(source.StaleSessionError);
  });

  it('tell each other’s errors apart with isInstance', () => {
    const theirs = new built.MissingApprovalKeyError('s1', 'approvalKey', 'hmac:ab', 1);
    expect(source.MissingApprovalKeyError.isInstance(theirs)).toBe(true);
    expect(source.ApprovalKeyError.isInstance(theirs)).toBe(true);
    expect(source.AgateError.isInstance(theirs)).toBe(true);
    expect(source.SnapshotError.isInstance(theirs)).toBe(false);

    const ours = new source.StaleSessionError('s1', 1, 2);
    expect(built.StaleSessionError.isInstance(ours)).toBe(true);
    expect(built.AgateError.isInstance(ours)).toBe(true);
    expect(built.MissingApprovalKeyError.isInstance(ours)).toBe(false);
  });

  it('name every error class as it is exported', () => {
    const classes = Object.entries(built as Record<string, unknown>).filter(
      (entry): entry is [string, typeof source.AgateError] =>
        typeof entry[1] === 'function' && entry[1].prototype instanceof built.AgateError,
    );
    expect(classes.length).toBeGreaterThan(30);
    for (const [exported, value] of classes) expect(value.name).toBe(exported);
  });
});
