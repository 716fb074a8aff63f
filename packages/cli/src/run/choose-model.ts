import type { LanguageModel } from 'ai';
import { CliError, ExitCode } from '../errors.js';
import type { EnvModel } from './model-from-env.js';
import { MODEL_HELP, namesProvider, type ProviderEnv } from './provider-env.js';

export interface ChosenModel {
  model: LanguageModel;
  /** What the run talks to and why, for the first line of output. */
  description: string;
}

/**
 * Where the model comes from, first match wins: `--scripted FILE` (asked for explicitly), the
 * environment (`AGATE_BASE_URL` + `AGATE_MODEL`, then `OPENAI_API_KEY`), the agent file's
 * `options.model`. With none of them the run cannot start.
 */
export async function chooseModel(input: {
  scripted?: string;
  env: ProviderEnv;
  fileModel?: LanguageModel;
}): Promise<ChosenModel> {
  if (input.scripted !== undefined) {
    // Loaded only for --scripted: its script schema is built when the module loads.
    const { loadScriptedModel } = await import('./scripted-file.js');
    return {
      model: await loadScriptedModel(input.scripted),
      description: `scripted model from ${input.scripted} (offline)`,
    };
  }
  let fromEnv: EnvModel | undefined;
  if (namesProvider(input.env)) {
    // The providers load only when the environment names one: an agent file that brings its
    // own model (the demo, a scripted test) starts without them.
    const { modelFromEnv, ProviderConfigError } = await import('./model-from-env.js');
    try {
      fromEnv = modelFromEnv(input.env);
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

function describeModel(model: LanguageModel): string {
  if (typeof model === 'string') return model;
  if (model.provider === 'agate-scripted') return `${model.modelId}, a scripted model: offline`;
  return `${model.provider} ${model.modelId}`;
}
