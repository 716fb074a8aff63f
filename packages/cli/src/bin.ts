// A reader that went away (`agate run … | head -1`) is not a failure of the run: the rest of the
// output is dropped and the run goes on to its end (and its save), instead of a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
  throw error;
});

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  // Answered before the program loads: it imports @agate/core, zod, ai and commander, 0.35 s
  // of a 0.4 s `agate --version`. The same line the program prints for it.
  const { CLI_VERSION } = await import('./version.js');
  process.stdout.write(`${CLI_VERSION}\n`);
} else {
  const [{ processIo }, { main }] = await Promise.all([import('./io.js'), import('./program.js')]);
  process.exitCode = await main(args, processIo());
}
