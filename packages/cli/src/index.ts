export { CliError, ExitCode, type ExitCodeValue } from './errors.js';
export type { CliIo } from './io.js';
export { createProgram, main } from './program.js';
export type { AgentFileOptions } from './run/load-agent.js';
export {
  DEFAULT_OPENAI_MODEL,
  type EnvModel,
  MODEL_HELP,
  modelFromEnv,
  ProviderConfigError,
  type ProviderEnv,
} from './run/model-from-env.js';
export { type ScriptFile, scriptedModelFrom } from './run/scripted-file.js';
export { createPlainPrinter, plainLines } from './view/plain.js';
export {
  initialView,
  type RunViewState,
  reduceView,
  type SessionFacts,
  type ViewAction,
} from './view/view-state.js';
