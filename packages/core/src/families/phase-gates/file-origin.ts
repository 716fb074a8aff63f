import type { FileRecord, PhaseLedger } from './phase-ledger-state.js';

// Files programs write as output (images, databases, logs, rendered docs), never source.
const OUTPUT_FILE =
  /\.(?:dot|html?|png|jpe?g|gif|svg|pdf|eps|ps|sqlite3?|db|pickle|pkl|npy|npz|nc|h5|hdf5|parquet|csv|tsv|out|log|tmp|bak|new|orig|rej|prof|coverage)$/i;

/**
 * Whether the run made a file, as far as the calls tell: it wrote the file whole first, or made
 * a directory above it, or the file is program output (an image, a database, a log) that the
 * run only ever read before deleting it.
 */
export function createdByRun(ledger: PhaseLedger, path: string, record: FileRecord): boolean {
  if (record.created) return true;
  for (let dir = posixDirname(path); dir !== ''; dir = posixDirname(dir)) {
    if (ledger.files[dir]?.created === true) return true;
  }
  return !record.exists && record.readOnlyBefore === true && OUTPUT_FILE.test(path);
}

function posixDirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '' : path.slice(0, i);
}
