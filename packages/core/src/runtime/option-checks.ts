import { InvalidOptionError } from './tool-limits.js';

/**
 * Every numeric option is checked at the call that takes it (`createSession`, `run()`), so a
 * `maxTicks` of `NaN`, `-1` or `"3"` fails at once with the option's name, the value and what
 * is allowed, instead of silently running zero ticks (or forever) later.
 */

/** How a value is shown in an error: its JSON form, or its type when JSON cannot say it. */
export function shown(value: unknown): string {
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value);
  if (typeof value === 'string') return `${JSON.stringify(value)} (a string)`;
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** A whole number >= `min` (or undefined when optional and absent). */
export function checkWholeNumber(option: string, value: unknown, min: number, hint: string): void {
  if (value === undefined) return;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return;
  throw new InvalidOptionError(
    `${option} must be a whole number >= ${min}, got ${shown(value)}. ${hint}`,
  );
}

export interface CheckedOptions {
  maxTicks?: unknown;
  maxTimelineMessages?: unknown;
  maxEvents?: unknown;
  signal?: unknown;
  streaming?: unknown;
  onEvent?: unknown;
  model?: unknown;
  tickLog?: unknown;
}

/** The options `createSession` takes (the tool limits and budget are checked where they are read). */
export function checkSessionOptions(options: CheckedOptions | undefined): void {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(
      `createSession needs an options object with at least { model }, got ${shown(options)}.`,
    );
  }
  if (options.model === undefined || options.model === null) {
    throw new InvalidOptionError(
      'model is required: pass any AI SDK language model (a provider model, or scriptedModel() in tests).',
    );
  }
  checkRunLimits(options);
  checkWholeNumber(
    'maxTimelineMessages',
    options.maxTimelineMessages,
    1,
    'Leave it out for the default 5,000.',
  );
  checkWholeNumber('maxEvents', options.maxEvents, 1, 'Leave it out for the default 1,000.');
  if (
    options.streaming !== undefined &&
    options.streaming !== true &&
    options.streaming !== false &&
    options.streaming !== 'auto'
  ) {
    throw new InvalidOptionError(
      `streaming must be true, false or 'auto', got ${shown(options.streaming)}.`,
    );
  }
  checkTickLog(options.tickLog);
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw new InvalidOptionError(`onEvent must be a function, got ${shown(options.onEvent)}.`);
  }
}

/** The options both `createSession` and `run()` take. */
export function checkRunLimits(options: CheckedOptions): void {
  checkWholeNumber('maxTicks', options.maxTicks, 1, 'Leave it out for the default 25.');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new InvalidOptionError(
      `signal must be an AbortSignal (from an AbortController), got ${shown(options.signal)}.`,
    );
  }
}

function checkTickLog(value: unknown): void {
  if (value === undefined || typeof value === 'boolean') return;
  if (typeof value !== 'object' || value === null) {
    throw new InvalidOptionError(
      `tickLog must be true, false or { maxTicks?, maxFieldChars? }, got ${shown(value)}.`,
    );
  }
  const { maxTicks, maxFieldChars } = value as { maxTicks?: unknown; maxFieldChars?: unknown };
  checkWholeNumber('tickLog.maxTicks', maxTicks, 1, 'Leave it out for the default 1,000.');
  checkWholeNumber(
    'tickLog.maxFieldChars',
    maxFieldChars,
    100,
    'Leave it out for the default 10,000.',
  );
}
