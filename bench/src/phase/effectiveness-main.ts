/**
 * `pnpm --filter @agate/bench bench:phase`: the phase-gate effectiveness table (weak-model
 * policies × no phase gates / warn / block) as Markdown on stdout.
 */
import { measurePhaseEffectiveness, renderEffectivenessTable } from './effectiveness.js';

const rows = await measurePhaseEffectiveness();
process.stdout.write(`${renderEffectivenessTable(rows)}\n`);
