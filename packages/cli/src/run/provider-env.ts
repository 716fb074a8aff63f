/**
 * The environment variables that name a model, read without loading a provider: the providers
 * (`@ai-sdk/openai-compatible`) is loaded only when one of them is set, so
 * `agate run` on an agent file that brings its own model starts without them.
 */

/** The environment variables read (pass `process.env`, or an object in tests). */
export type ProviderEnv = Readonly<Record<string, string | undefined>>;

/** How to name a model, for error messages and help. */
export const MODEL_HELP =
  'Set AGATE_BASE_URL and AGATE_MODEL for an OpenAI-compatible server (Ollama, vLLM, LM Studio: ' +
  'e.g. AGATE_BASE_URL=http://localhost:11434/v1 AGATE_MODEL=qwen2.5:7b), or OPENAI_API_KEY ' +
  '(and optionally AGATE_MODEL) for OpenAI, or pass --scripted FILE to run offline on a script.';

/** Whether the environment names a provider (`AGATE_BASE_URL` or `OPENAI_API_KEY`). */
export function namesProvider(env: ProviderEnv): boolean {
  return nonEmpty(env.AGATE_BASE_URL) !== undefined || nonEmpty(env.OPENAI_API_KEY) !== undefined;
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
