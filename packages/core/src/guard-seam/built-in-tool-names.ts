/**
 * Names of built-in tools that a family other than the one that renders the tool reads (the
 * ContinueGate's rework count skips `set_knob` calls), so no family imports another for them.
 */
export const SET_KNOB_TOOL = 'set_knob';
