import { AgateError, nameErrorClass } from '@agate/core';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { nonEmpty, type ProviderEnv } from './provider-env.js';

export { MODEL_HELP, type ProviderEnv } from './provider-env.js';

export interface EnvModel {
  kind: 'openai-compatible' | 'openai';
  model: LanguageModel;
  /** One line for the console: what the run talks to. */
  description: string;
}

export const DEFAULT_OPENAI_MODEL = 'gpt-4.1-mini';

/** OpenAI's own endpoint; `OPENAI_BASE_URL` (the variable OpenAI's SDKs read) replaces it. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The environment names a model only halfway (for example a base URL without a model). */
export class ProviderConfigError extends AgateError {
  static {
    nameErrorClass(ProviderConfigError, 'ProviderConfigError');
  }
}

/**
 * The model the environment names, if any:
 * - `AGATE_BASE_URL` + `AGATE_MODEL` (and optional `AGATE_API_KEY`): an OpenAI-compatible
 *   server — Ollama (`http://localhost:11434/v1`), vLLM, LM Studio, ...
 * - else `OPENAI_API_KEY` (+ optional `AGATE_MODEL`, `OPENAI_BASE_URL`): OpenAI's chat
 *   completions API, through the same OpenAI-compatible provider (so the CLI carries one
 *   provider package, not two; an agent that wants `@ai-sdk/openai`'s Responses API names its
 *   own `options.model`).
 * - else `undefined`.
 */
export function modelFromEnv(env: ProviderEnv): EnvModel | undefined {
  const baseURL = nonEmpty(env.AGATE_BASE_URL);
  const modelId = nonEmpty(env.AGATE_MODEL);
  if (baseURL !== undefined) {
    if (modelId === undefined) {
      throw new ProviderConfigError(
        `AGATE_BASE_URL is set (${baseURL}) but AGATE_MODEL is not: set AGATE_MODEL to a model ` +
          'your server serves, for example AGATE_MODEL=qwen2.5:7b for Ollama.',
      );
    }
    const apiKey = nonEmpty(env.AGATE_API_KEY);
    const provider = createOpenAICompatible({
      name: 'local',
      baseURL,
      includeUsage: true,
      ...(apiKey !== undefined ? { apiKey } : {}),
    });
    return {
      kind: 'openai-compatible',
      model: provider(modelId),
      description: `OpenAI-compatible server at ${baseURL}, model "${modelId}"`,
    };
  }

  const openaiKey = nonEmpty(env.OPENAI_API_KEY);
  if (openaiKey !== undefined) {
    const id = modelId ?? DEFAULT_OPENAI_MODEL;
    const provider = createOpenAICompatible({
      name: 'openai',
      baseURL: nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_BASE_URL,
      apiKey: openaiKey,
      includeUsage: true,
    });
    return {
      kind: 'openai',
      model: provider(id),
      description: `OpenAI, model "${id}"`,
    };
  }
  return undefined;
}
