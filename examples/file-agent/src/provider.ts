import { modelFromEnv, type ProviderEnv } from '@agate/cli';
import type { LanguageModel } from 'ai';
import { offlineModel } from './offline-model.js';

export { DEFAULT_OPENAI_MODEL, ProviderConfigError, type ProviderEnv } from '@agate/cli';

export interface ProviderChoice {
  kind: 'openai-compatible' | 'openai' | 'scripted';
  model: LanguageModel;
  /** One line for the console: what the run talks to. */
  description: string;
}

/**
 * Picks the model the way `agate run` does (`modelFromEnv` from @agate/cli):
 * - `AGATE_BASE_URL` + `AGATE_MODEL` (and optional `AGATE_API_KEY`): an OpenAI-compatible
 *   server — Ollama (`http://localhost:11434/v1`), vLLM, LM Studio, ...
 * - else `OPENAI_API_KEY` (+ optional `AGATE_MODEL`): OpenAI.
 * - else the offline scripted model, which does the task without any network.
 * Throws `ProviderConfigError` when the environment names a model only halfway.
 */
export function selectProvider(env: ProviderEnv): ProviderChoice {
  const fromEnv = modelFromEnv(env);
  if (fromEnv !== undefined) return fromEnv;
  return {
    kind: 'scripted',
    model: offlineModel(),
    description:
      'offline, on a scripted model (no network). To use a real model set AGATE_BASE_URL and ' +
      'AGATE_MODEL (Ollama, vLLM, LM Studio: e.g. AGATE_BASE_URL=http://localhost:11434/v1 ' +
      'AGATE_MODEL=qwen2.5:7b), or OPENAI_API_KEY (and optionally AGATE_MODEL).',
  };
}
