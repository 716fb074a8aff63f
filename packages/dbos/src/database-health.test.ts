import { describe, expect, it } from 'vitest';
import { DatabaseHealth, type WorkerEvent } from './database-health.js';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** A health whose probe fails `failures` times, then answers; what it told, in order. */
function health(failures: number) {
  const events: WorkerEvent[] = [];
  let probes = 0;
  const h = new DatabaseHealth('postgres://unused', (e) => events.push(e), {
    probe: async () => {
      probes++;
      if (probes <= failures) throw refused();
    },
    firstBackoffMs: 5,
    maxBackoffMs: 20,
  });
  return { h, events, probes: () => probes };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('DatabaseHealth', () => {
  it('a database away for a while: one event when it goes and one when it is back, however many failures were seen', async () => {
    const { h, events, probes } = health(6);
    for (let i = 0; i < 32; i++) expect(h.suspect(refused())).toBe(true);
    await until(() => events.length === 2);
    expect(events[0]).toEqual({
      type: 'database-down',
      error: 'connect ECONNREFUSED 127.0.0.1:5432',
    });
    expect(events[1]).toMatchObject({ type: 'database-up' });
    expect((events[1] as { downForMs: number }).downForMs).toBeGreaterThan(0);
    // One probe per backoff step, not one per failure seen.
    expect(probes()).toBe(7);
    await h.stop();
  });

  it('a stale connection failing once while the database answers: no event', async () => {
    const { h, events, probes } = health(0);
    expect(h.suspect(new Error('Connection terminated unexpectedly'))).toBe(true);
    await until(() => probes() === 1);
    await h.stop();
    expect(events).toEqual([]);
  });

  it('leaves other failures to the caller, and says nothing once stopped', async () => {
    const { h, events } = health(100);
    expect(h.suspect(new Error('permission denied for table workers'))).toBe(false);
    await h.stop();
    h.suspect(refused());
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(events).toEqual([]);
  });
});
