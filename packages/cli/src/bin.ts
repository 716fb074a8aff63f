import { processIo } from './io.js';
import { main } from './program.js';

process.exitCode = await main(process.argv.slice(2), processIo());
