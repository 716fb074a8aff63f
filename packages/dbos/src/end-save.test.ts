import { describe, expect, it } from 'vitest';
import { wakesWait } from './end-save.js';

describe('wakesWait: is a wake message news for the wait it reaches?', () => {
  it('a change to a newer revision than the wait’s end wakes it', () => {
    expect(wakesWait({ kind: 'changed', fingerprint: 'r8' }, 'r7')).toBe(true);
    expect(wakesWait({ kind: 'changed', fingerprint: 'r12' }, 'r9')).toBe(true);
  });

  it('the wait’s own end, or an earlier revision, is a wake meant for an earlier wait', () => {
    expect(wakesWait({ kind: 'changed', fingerprint: 'r7' }, 'r7')).toBe(false);
    expect(wakesWait({ kind: 'changed', fingerprint: 'r5' }, 'r7')).toBe(false);
  });

  it('stores without revisions: any other save time is news, the end’s own is not', () => {
    const at = 't2026-12-06T20:00:00.000Z';
    expect(wakesWait({ kind: 'changed', fingerprint: at }, at)).toBe(false);
    expect(wakesWait({ kind: 'changed', fingerprint: 't2026-12-06T20:00:01.000Z' }, at)).toBe(true);
  });

  it('a cancellation always wakes; a run recorded before ends carried their print takes any', () => {
    expect(wakesWait({ kind: 'cancel' }, 'r7')).toBe(true);
    expect(wakesWait({ kind: 'changed', fingerprint: 'r3' }, undefined)).toBe(true);
  });
});
