import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { MANIFEST, type PackedPackage, packAll } from './pack-all.js';
import { createPackedProject, type PackedProject } from './packed-project.js';

/** What the packed tests share: the tarballs and the project installed from them. */
export interface PackedRun {
  /** The folder of tarballs. */
  dir: string;
  packed: PackedPackage[];
  project: PackedProject;
  /** A temporary folder the tests may write into (removed afterwards). */
  scratch: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    packedRun: PackedRun;
  }
}

/**
 * Packs once and installs once for every packed test file: `AGATE_PACKED_DIR` names a folder
 * `pnpm pack:all` already wrote (what `pnpm release` does); without it, the packages are built
 * and packed here, into a temporary folder.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const scratch = mkdtempSync(join(tmpdir(), 'agate-packed-'));
  try {
    const given = process.env.AGATE_PACKED_DIR || undefined;
    const dir = given === undefined ? join(scratch, 'packed') : resolve(given);
    const packed =
      given === undefined
        ? packAll({ out: dir })
        : (JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as PackedPackage[]);
    const installed = await createPackedProject(dir, packed, scratch);
    project.provide('packedRun', { dir, packed, project: installed, scratch });
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  return () => rmSync(scratch, { recursive: true, force: true });
}
