export { formatContext } from './format-context.js';
export { renderContext } from './render-context.js';
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
