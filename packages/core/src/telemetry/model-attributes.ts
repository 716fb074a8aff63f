import type { Attributes } from '@opentelemetry/api';
import type { LanguageModel } from 'ai';
import type { ModelSettings } from '../runtime/model-call.js';
import type { ServerAddress } from './genai-spans.js';
import {
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_P,
} from './semconv.js';

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
    attributes[ATTR_GEN_AI_REQUEST_TEMPERATURE] = settings.temperature;
  if (settings.maxOutputTokens !== undefined)
    attributes[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = settings.maxOutputTokens;
  if (settings.topP !== undefined) attributes[ATTR_GEN_AI_REQUEST_TOP_P] = settings.topP;
  if (settings.seed !== undefined) attributes[ATTR_GEN_AI_REQUEST_SEED] = settings.seed;
  return attributes;
}

/** What a provider's model object carries about its endpoint (not part of the AI SDK's types). */
interface ProviderConfig {
  baseURL?: unknown;
  url?: unknown;
}

/**
 * `server.address` / `server.port` of the provider's API, read from the model's config the way
 * the AI SDK's providers keep it (`config.baseURL`, or `config.url()` that builds the request
 * URL). Undefined when the model does not say (a gateway id, a custom model, a test double).
 */
export function serverAddress(model: LanguageModel): ServerAddress | undefined {
  try {
    return readServerAddress(model);
  } catch {
    // A model object is not ours to trust: one that throws on inspection is simply not told.
    return undefined;
  }
}

function readServerAddress(model: LanguageModel): ServerAddress | undefined {
  if (typeof model === 'string') return undefined;
  const config = (model as { config?: ProviderConfig }).config;
  if (config === undefined || config === null || typeof config !== 'object') return undefined;
  let url: unknown = config.baseURL;
  if (typeof url !== 'string' && typeof config.url === 'function') {
    try {
      url = (config.url as (o: { path: string; modelId: string }) => unknown)({
        path: '/chat/completions',
        modelId: model.modelId,
      });
    } catch {
      return undefined;
    }
  }
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    const port =
      parsed.port !== ''
        ? Number(parsed.port)
        : parsed.protocol === 'https:'
          ? 443
          : parsed.protocol === 'http:'
            ? 80
            : undefined;
    if (port === undefined) return undefined;
    // IPv6 hosts come bracketed from URL; the conventions want the bare address.
    return { address: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
  } catch {
    return undefined;
  }
}
