export { formatContext } from './format-context.js';
export { MAX_SLOWNESS, type MachineSpeed, machineSpeed, scaledLimit } from './machine-speed.js';
export {
  type ChatCompletionMessage,
  type ChatCompletionRequest,
  type OpenAICompatibleServer,
  type OpenAICompatibleServerOptions,
  type ServerReply,
  type ServerRequestInfo,
  type ServerScript,
  type ServerToolCall,
  type ServerTurn,
  startOpenAICompatibleServer,
} from './openai-compatible-server.js';
export {
  postgresBinDir,
  requirePostgres,
  type StartPostgresOptions,
  startPostgres,
  type TestPostgres,
} from './postgres.js';
export { type RenderContextOptions, renderContext } from './render-context.js';
export {
  ScriptExhaustedError,
  type ScriptedCall,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedReply,
  type ScriptedToolCall,
  type ScriptedTurn,
  scriptedModel,
} from './scripted-model.js';
export { agateSerializer } from './serializer.js';
export {
  commandExists,
  REQUIRE_SYSTEM_ENV,
  requireSystem,
  SystemRequiredError,
  type SystemRequirement,
  systemRequired,
} from './system-requirements.js';
