import type { LanguageModel } from 'ai';
import { CliError, ExitCode } from '../errors.js';
import type { EnvModel } from './model-from-env.js';
import { MODEL_HELP, namesProvider, nonEmpty, type ProviderEnv } from './provider-env.js';

export interface ChosenModel {
  model: LanguageModel;
  /** What the run talks to and why, for the first line of output. */
  description: string;
}

/** The script's first turn to play (1-based), and why that one, for the output's first lines. */
export interface ScriptTurn {
  turn: number;
  why: string;
}

/**
 * Where the model comes from, first match wins: `--scripted FILE` (asked for explicitly), the
 * flags `--model`/`--base-url` over the environment (`AGATE_BASE_URL` + `AGATE_MODEL`, then
 * `OPENAI_API_KEY`), the agent file's `options.model`. With none of them the run cannot start.
 */
export async function chooseModel(input: {
  scripted?: string;
  /** With `scripted`: the turn to start from (default the first). */
  scriptTurn?: ScriptTurn;
  /** `--model <id>`: in place of `AGATE_MODEL`. */
  model?: string;
  /** `--base-url <url>`: in place of `AGATE_BASE_URL`. */
  baseUrl?: string;
  env: ProviderEnv;
  fileModel?: LanguageModel;
}): Promise<ChosenModel> {
  if (input.scripted !== undefined) {
    if (input.model !== undefined || input.baseUrl !== undefined) {
      throw new CliError(
        '--scripted runs on a script, --model/--base-url on a server: give one of them.',
        ExitCode.usage,
      );
    }
    // Loaded only for --scripted: its script schema is built when the module loads.
    const { loadScriptFrom } = await import('./scripted-file.js');
    const start = input.scriptTurn ?? { turn: 1, why: 'the first' };
    const script = await loadScriptFrom(input.scripted, start.turn, start.why);
    return {
      model: script.model,
      description:
        input.scriptTurn === undefined
          ? `scripted model from ${input.scripted} (offline)`
          : `scripted model from ${input.scripted} (offline), from turn ${script.turn} of ${script.total} (${start.why})`,
    };
  }
  const env = withModelFlags(input.env, input.model, input.baseUrl);
  if (input.scriptTurn !== undefined) {
    throw new CliError(
      '--script-turn picks a turn of --scripted FILE; give the script too.',
      ExitCode.usage,
    );
  }
  let fromEnv: EnvModel | undefined;
  if (namesProvider(env)) {
    // The providers load only when the environment names one: an agent file that brings its
    // own model (the demo, a scripted test) starts without them.
    const { modelFromEnv, ProviderConfigError } = await import('./model-from-env.js');
    try {
      fromEnv = modelFromEnv(env);
    } catch (error) {
      if (ProviderConfigError.isInstance(error)) {
        throw new CliError(error.message, ExitCode.usage, { cause: error });
      }
      throw error;
    }
  }
  if (fromEnv !== undefined) return { model: fromEnv.model, description: fromEnv.description };
  if (input.fileModel !== undefined) {
    return {
      model: input.fileModel,
      description: `the agent file's options.model (${describeModel(input.fileModel)})`,
    };
  }
  throw new CliError(`No model to run the agent with. ${MODEL_HELP}`, ExitCode.usage);
}

/** `--model`/`--base-url` stand in for the variables they name; each alone must still name a model. */
function withModelFlags(
  env: ProviderEnv,
  model: string | undefined,
  baseUrl: string | undefined,
): ProviderEnv {
  if (model === undefined && baseUrl === undefined) return env;
  const merged: ProviderEnv = {
    ...env,
    ...(model !== undefined ? { AGATE_MODEL: model } : {}),
    ...(baseUrl !== undefined ? { AGATE_BASE_URL: baseUrl } : {}),
  };
  if (model !== undefined && model.trim() === '') {
    throw new CliError(
      '--model is empty: name the model, e.g. --model qwen2.5:7b.',
      ExitCode.usage,
    );
  }
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(baseUrl.trim())) {
    throw new CliError(
      `--base-url ${JSON.stringify(baseUrl)} is not an http(s) URL: give the server's OpenAI-compatible endpoint, e.g. http://localhost:11434/v1.`,
      ExitCode.usage,
    );
  }
  if (baseUrl !== undefined && nonEmpty(merged.AGATE_MODEL) === undefined) {
    throw new CliError(
      `--base-url names a server (${baseUrl}) but no model: add --model <id>, a model it serves.`,
      ExitCode.usage,
    );
  }
  if (!namesProvider(merged)) {
    throw new CliError(
      `--model names a model (${model}) but no provider: add --base-url <url> for an OpenAI-compatible server, or set OPENAI_API_KEY for OpenAI.`,
      ExitCode.usage,
    );
  }
  return merged;
}

function describeModel(model: LanguageModel): string {
  if (typeof model === 'string') return model;
  if (model.provider === 'agate-scripted') return `${model.modelId}, a scripted model: offline`;
  return `${model.provider} ${model.modelId}`;
}
