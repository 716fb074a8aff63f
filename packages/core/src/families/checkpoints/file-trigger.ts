import { resolve } from 'node:path';
import type { FileBaseline } from '../../approvals/ledger-types.js';
import { hashFile, markOf } from '../../workspace/fingerprint.js';
import type { CheckpointProps } from './checkpoint-types.js';

/** The absolute path a checkpoint's `trigger.fileWritten` names (relative to its workspace). */
export function triggerPath(props: CheckpointProps): string | undefined {
  if (props.trigger === undefined) return undefined;
  return resolve(props.workspace ?? process.cwd(), props.trigger.fileWritten);
}

/** The file as it is now: what "written since the checkpoint opened" is measured against. */
export async function captureBaseline(path: string): Promise<FileBaseline> {
  const mark = await markOf(path);
  if (mark === undefined) return { path, exists: false };
  return { path, exists: true, size: mark.size, mtimeMs: mark.mtimeMs, hash: await hashFile(path) };
}

/**
 * Whether the file was created or changed since `baseline`: one `stat` per call, and a hash
 * only when the size is unchanged but the mtime moved (a `touch` is not a write). `declared`
 * (the tool's `writes` names this file) also hashes when size and mtime are unchanged, which
 * catches a same-size rewrite within one mtime tick. A deleted file is not a written one.
 */
export async function wasWritten(baseline: FileBaseline, declared = false): Promise<boolean> {
  const now = await markOf(baseline.path);
  if (now === undefined) return false;
  if (!baseline.exists) return true;
  if (now.size !== baseline.size) return true;
  if (now.mtimeMs === baseline.mtimeMs && !declared) return false;
  return (await hashFile(baseline.path)) !== baseline.hash;
}

/** Paths a `<Tool writes>` declaration names for one call, resolved; [] when it throws. */
export function declaredWrites(
  writes: ((input: never) => readonly string[]) | undefined,
  input: unknown,
  workspace: string,
): string[] {
  if (writes === undefined || input === undefined) return [];
  try {
    return writes(input as never).map((p) => resolve(workspace, p));
  } catch {
    return [];
  }
}
