import { scriptedModel } from '@agate/testing';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { scriptedModelFrom, scriptSchema } from './scripted-file.js';

describe('script files', () => {
  it('accept a list of turns or an object with options, and refuse unknown fields', () => {
    expect(
      scriptSchema.safeParse(['hi', { text: 'x', toolCalls: [{ toolName: 't' }] }]).success,
    ).toBe(true);
    expect(scriptSchema.safeParse({ turns: ['hi'], whenExhausted: 'repeat-last' }).success).toBe(
      true,
    );
    expect(scriptSchema.safeParse([{ txt: 'typo' }]).success).toBe(false);
    expect(scriptSchema.safeParse([{ toolCalls: [{ input: {} }] }]).success).toBe(false);
    expect(scriptSchema.safeParse({ turns: [], whenExhausted: 'loop' }).success).toBe(false);
  });

  it('become a scripted model: replies in order, errors as provider errors, repeat-last when asked', async () => {
    const model = scriptedModelFrom(
      {
        turns: ['first', { error: 'rate limited' }, 'last'],
        whenExhausted: 'repeat-last',
        modelId: 'm',
      },
      scriptedModel,
    );
    expect(model.modelId).toBe('m');
    expect((await generateText({ model, prompt: 'a' })).text).toBe('first');
    await expect(generateText({ model, prompt: 'b', maxRetries: 0 })).rejects.toThrow(
      'rate limited',
    );
    expect((await generateText({ model, prompt: 'c' })).text).toBe('last');
    expect((await generateText({ model, prompt: 'd' })).text).toBe('last');
  });
});
