import type { Attributes } from '@opentelemetry/api';
import type { LanguageModel } from 'ai';
import type { ModelSettings } from '../runtime/model-call.js';

/**
 * AI SDK provider ids (the part before the first `.` of `model.provider`) whose
 * `gen_ai.provider.name` the conventions spell differently. Others are used as they are
 * (`openai`, `anthropic`, `groq`, a local server's own name).
 */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  'amazon-bedrock': 'aws.bedrock',
  azure: 'azure.ai.openai',
  google: 'gcp.gemini',
  'google-vertex': 'gcp.vertex_ai',
  mistral: 'mistral_ai',
  xai: 'x_ai',
};

export interface ModelIdentity {
  provider: string;
  model: string;
}

/** Provider and model names for `gen_ai.provider.name` / `gen_ai.request.model`. */
export function modelIdentity(model: LanguageModel): ModelIdentity {
  if (typeof model === 'string') {
    // A gateway id such as `openai/gpt-5`.
    const slash = model.indexOf('/');
    return slash > 0
      ? { provider: providerName(model.slice(0, slash)), model: model.slice(slash + 1) }
      : { provider: 'gateway', model };
  }
  return {
    provider: providerName(model.provider.split('.')[0] ?? model.provider),
    model: model.modelId,
  };
}

function providerName(id: string): string {
  return PROVIDER_NAMES[id] ?? id;
}

/** The request settings the conventions name (`gen_ai.request.temperature`, ...). */
export function requestAttributes(settings: ModelSettings | undefined): Attributes {
  const attributes: Attributes = {};
  if (settings === undefined) return attributes;
  if (settings.temperature !== undefined)
    attributes['gen_ai.request.temperature'] = settings.temperature;
  if (settings.maxOutputTokens !== undefined)
    attributes['gen_ai.request.max_tokens'] = settings.maxOutputTokens;
  if (settings.topP !== undefined) attributes['gen_ai.request.top_p'] = settings.topP;
  if (settings.seed !== undefined) attributes['gen_ai.request.seed'] = settings.seed;
  return attributes;
}
