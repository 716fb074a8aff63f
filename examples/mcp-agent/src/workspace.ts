import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The loose files the agent finds. */
export const SEED_FILES: Readonly<Record<string, string>> = {
  'holiday.png': 'not really a PNG',
  'cat.jpg': 'not really a JPEG',
  'invoice.pdf': 'not really a PDF',
  'notes.txt': 'remember the milk\n',
};

async function seed(root: string): Promise<void> {
  for (const [name, content] of Object.entries(SEED_FILES)) {
    await writeFile(join(root, name), content);
  }
}

/** A fresh downloads folder (its real path: the server compares real paths). */
export async function createDownloads(): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agate-mcp-agent-')));
  await seed(root);
  return root;
}

/**
 * The demo's downloads folder, `.agate/downloads` in the directory `agate run` started in
 * (beside the sessions it saves in `.agate/sessions`). It outlives the process: a run that
 * waits for approvals goes on in another `agate run --resume`, after `agate approve` in a third,
 * and the calls approved there move files in this folder. When none of the four files is left loose,
 * the folder starts again from them, so every new run has something to tidy.
 */
export async function demoDownloads(cwd = process.cwd()): Promise<string> {
  const root = join(cwd, '.agate', 'downloads');
  await mkdir(root, { recursive: true });
  const loose = (await readdir(root)).filter((name) => Object.hasOwn(SEED_FILES, name));
  if (loose.length === 0) {
    // A tidied folder: start again from the loose files (the moved ones would be in the way).
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { recursive: true });
    await seed(root);
  }
  return realpath(root);
}
