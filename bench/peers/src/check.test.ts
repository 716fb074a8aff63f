import { describe, expect, it } from 'vitest';
import { checkedRun, MiscountError } from './check.js';
import { FINAL_TEXT } from './script.js';
import { SIDE_IDS, type Side } from './side.js';
import { SIDES } from './sides/index.js';

describe('the peers harness', () => {
  it.each(SIDE_IDS)(
    '%s makes exactly 3 tool calls and 4 model calls on a 3-step run',
    async (id) => {
      const run = await checkedRun(SIDES[id], 3);
      expect(run).toEqual({ modelCalls: 4, text: FINAL_TEXT });
    },
  );

  it('fails a side whose run stops a step early', async () => {
    const plain = SIDES.plain;
    const short: Side = { ...plain, run: (steps, options) => plain.run(steps - 1, options) };
    await expect(checkedRun(short, 3)).rejects.toThrow(MiscountError);
  });
});
