import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type PackedPackage, packedIn } from './pack-all.js';
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
    const { dir, packed } = packedIn(process.env.AGATE_PACKED_DIR || undefined, scratch);
    // From the committed locks (release/packed-lock/): what the registry serves today cannot
    // change the result.
    const installed = await createPackedProject(dir, packed, scratch);
    project.provide('packedRun', { dir, packed, project: installed, scratch });
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  return () => rmSync(scratch, { recursive: true, force: true });
}
