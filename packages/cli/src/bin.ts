import { processIo } from './io.js';
import { main } from './program.js';

// A reader that went away (`agate run … | head -1`) is not a failure of the run: the rest of the
// output is dropped and the run goes on to its end (and its save), instead of a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
  throw error;
});

process.exitCode = await main(process.argv.slice(2), processIo());
