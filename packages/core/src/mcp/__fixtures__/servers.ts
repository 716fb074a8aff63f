import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const modules = new URL('../../../node_modules/', import.meta.url);

/** The reference servers' entry points (dev dependencies), run with `node`. */
export const EVERYTHING = fileURLToPath(
  new URL('@modelcontextprotocol/server-everything/dist/index.js', modules),
);
export const FILESYSTEM = fileURLToPath(
  new URL('@modelcontextprotocol/server-filesystem/dist/index.js', modules),
);

/** A fixture server of ours (written with the official SDK), by file name. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}

/** Whether a process is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const serversInstalled = existsSync(EVERYTHING) && existsSync(FILESYSTEM);
