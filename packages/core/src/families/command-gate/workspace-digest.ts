import { resolve } from 'node:path';
import { type FileMark, fingerprintWorkspace, hashFile } from '../../workspace/fingerprint.js';

// node:crypto taken when first used (not at import), as ground/builtins.ts does inside the
// runtime; this is family code, which imports only the public API.
const nodeCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');

/**
 * Directories a check's runner writes on every run (caches, bytecode): not the work, so a run
 * of the check does not itself make the workspace "changed".
 */
const IGNORE = ['.git', 'node_modules', '.agate', '__pycache__', '.pytest_cache', '.mypy_cache'];

/**
 * One string for the workspace's content: every file's path, size and sha256. The hashes of
 * files whose size and mtime are what they were last time are taken from `cache` (one `stat` a
 * file for an unchanged tree); a `touch` is not a change, an edit within one mtime tick is.
 */
export class WorkspaceDigest {
  private cache = new Map<string, FileMark>();

  async of(dir: string): Promise<string> {
    const root = resolve(dir);
    const marks = await fingerprintWorkspace(root, { ignore: IGNORE });
    const hash = nodeCrypto().createHash('sha256');
    const paths = [...marks.keys()].sort();
    for (const path of paths) {
      const mark = marks.get(path)!;
      const known = this.cache.get(path);
      mark.hash =
        known?.hash !== undefined && known.size === mark.size && known.mtimeMs === mark.mtimeMs
          ? known.hash
          : await hashFile(resolve(root, path));
      hash.update(`${path}\0${mark.size}\0${mark.hash}\n`);
    }
    this.cache = marks;
    return hash.digest('hex');
  }
}
