export { materializeTicks } from './materialize.js';
export {
  DEFAULT_TICK_LOG_FIELD_CHARS,
  DEFAULT_TICK_LOG_TICKS,
  type MaterializedTick,
  type TickLogOptions,
  type TickRecord,
  type TickRecordCall,
  type TickRequestDelta,
} from './tick-record.js';
