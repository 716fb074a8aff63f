export {
  type ChatApprovalResponse,
  ChatConflictError,
  ChatOwnerError,
  ChatRequestError,
  type ChatSessionOptions,
  type ChatTurn,
  DEFAULT_MAX_CHAT_MESSAGE_CHARS,
  openChatSession,
} from './chat-request.js';
export type { AgateDataTypes, AgateUIMessage } from './data-parts.js';
export type { AgateUIMessageChunk } from './ui-chunks.js';
export { toUIMessageStream, type UIMessageStreamRunOptions } from './ui-message-stream.js';
