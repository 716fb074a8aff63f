import { mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The loose files the agent finds. */
export const SEED_FILES: Readonly<Record<string, string>> = {
  'holiday.png': 'not really a PNG',
  'cat.jpg': 'not really a JPEG',
  'invoice.pdf': 'not really a PDF',
  'notes.txt': 'remember the milk\n',
};

/** A fresh downloads folder (its real path: the server compares real paths). */
export async function createDownloads(): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agate-mcp-agent-')));
  for (const [name, content] of Object.entries(SEED_FILES)) {
    await writeFile(join(root, name), content);
  }
  return root;
}
