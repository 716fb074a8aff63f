import { describe, expect, it } from 'vitest';
import { chooseModel } from './choose-model.js';
import { modelFromEnv, ProviderConfigError } from './model-from-env.js';

describe('modelFromEnv', () => {
  it('prefers AGATE_BASE_URL + AGATE_MODEL, then OPENAI_API_KEY, else nothing', () => {
    const local = modelFromEnv({
      AGATE_BASE_URL: 'http://127.0.0.1:1/v1',
      AGATE_MODEL: 'm',
      OPENAI_API_KEY: 'k',
    });
    expect(local?.kind).toBe('openai-compatible');
    expect(local?.description).toBe('OpenAI-compatible server at http://127.0.0.1:1/v1, model "m"');
    expect(modelFromEnv({ OPENAI_API_KEY: 'sk-test' })?.description).toBe(
      'OpenAI, model "gpt-4.1-mini"',
    );
    expect(modelFromEnv({ OPENAI_API_KEY: 'sk-test', AGATE_MODEL: 'gpt-5' })?.description).toBe(
      'OpenAI, model "gpt-5"',
    );
    expect(modelFromEnv({ OPENAI_API_KEY: ' ' })).toBeUndefined();
    expect(modelFromEnv({})).toBeUndefined();
  });

  it('asks for AGATE_MODEL when only AGATE_BASE_URL is set', () => {
    expect(() => modelFromEnv({ AGATE_BASE_URL: 'http://127.0.0.1:1/v1' })).toThrow(
      ProviderConfigError,
    );
  });
});

describe('chooseModel', () => {
  it("uses the environment before the agent file's model, and says which it chose", async () => {
    const fileModel = 'provider/some-model';
    const env = { OPENAI_API_KEY: 'sk-test' };
    expect((await chooseModel({ env, fileModel })).description).toBe(
      'OpenAI, model "gpt-4.1-mini"',
    );
    expect((await chooseModel({ env: {}, fileModel })).description).toBe(
      "the agent file's options.model (provider/some-model)",
    );
  });
});
