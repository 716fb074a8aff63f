import { describe, expect, it } from 'vitest';
import { type AgateEvent, EventLog } from './events.js';

describe('EventLog: the root path of the session own events', () => {
  it('marks an event built without a path as the root session', () => {
    const log = new EventLog(10);
    const seen: AgateEvent[] = [];
    log.subscribe((event) => {
      seen.push(event);
    });
    log.emit({ type: 'warning', tick: 1, code: 'c', message: 'm' });
    expect(seen[0]?.path).toEqual([]);
    expect(log.take()).toEqual(seen);
  });

  it('copies a frozen event instead of failing on it', () => {
    const log = new EventLog(10);
    const frozen = Object.freeze({ type: 'warning', tick: 2, code: 'c', message: 'm' } as const);
    log.emit(frozen);
    const [event] = log.take();
    expect(event).toEqual({ ...frozen, path: [] });
    expect(frozen).not.toHaveProperty('path');
  });

  it("keeps a sub-agent's path as it came", () => {
    const log = new EventLog(10);
    log.emit({ type: 'warning', tick: 3, code: 'c', message: 'm', path: ['child'] });
    expect(log.take()[0]?.path).toEqual(['child']);
  });
});
