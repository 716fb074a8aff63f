import type { KeyObject } from 'node:crypto';
import type { ModelMessage } from 'ai';
import type { ReactNode } from 'react';
import { decisionTextProblem } from '../approvals/decision-text.js';
import { AgateError, nameErrorClass } from '../ground/agate-error.js';
import { isObjectRecord } from '../ground/json.js';
import { createInitialState } from '../guard-seam/initial-state.js';
import { StaleSessionError } from '../persistence/persistence-errors.js';
import type { SessionStore } from '../persistence/session-store.js';
import {
  assertValidSessionId,
  createSnapshot,
  type SessionSnapshot,
} from '../persistence/snapshot.js';
import { claimIsDead, parseClaim } from '../runtime/run-claim.js';
import { createSession, type Session, type SessionOptions } from '../runtime/session.js';
import type { SessionState } from '../state/session-state.js';

export const DEFAULT_MAX_CHAT_MESSAGE_CHARS = 20_000;

/** A `useChat` request the server cannot turn into a run; answer it with HTTP 400. */
export class ChatRequestError extends AgateError {
  static {
    nameErrorClass(ChatRequestError, 'ChatRequestError');
  }
  constructor(message: string) {
    super(message);
    this.name = 'ChatRequestError';
  }
}

/**
 * A chat request from someone the chat does not belong to (another `owner`, or a decider who
 * is neither the owner nor one of `approvers`); answer it with HTTP 403. Nothing of the chat
 * was changed, decided or sent.
 */
export class ChatOwnerError extends AgateError {
  static {
    nameErrorClass(ChatOwnerError, 'ChatOwnerError');
  }
  /** The chat the request was refused for. */
  readonly chatId: string;
  constructor(chatId: string, message: string) {
    super(message);
    this.name = 'ChatOwnerError';
    this.chatId = chatId;
  }
}

/**
 * Another request of the same chat got there first: it is being answered (its run holds the
 * chat), or it saved the chat after this request loaded it. Nothing of this request was
 * written; answer it with HTTP 409 and let the page send its message again once the other
 * reply has ended.
 */
export class ChatConflictError extends AgateError {
  static {
    nameErrorClass(ChatConflictError, 'ChatConflictError');
  }
  /** The chat whose session another request changed first. */
  readonly chatId: string;
  constructor(chatId: string, why: string) {
    super(
      `Chat "${chatId}" is busy: ${why}. This message was not added; send it again when the reply in progress has ended.`,
    );
    this.name = 'ChatConflictError';
    this.chatId = chatId;
  }
}

/**
 * How `openChatSession` makes a session per chat: the session's options, minus what the chat decides
 * (its id, snapshot, store), plus the request's limits.
 */
export interface ChatSessionOptions
  extends Omit<SessionOptions, 'id' | 'snapshot' | 'state' | 'store'> {
  /** Where each chat's session is kept, keyed by the chat id. */
  store: SessionStore;
  /** Characters of one user message accepted (default 20,000); a longer one is refused. */
  maxMessageChars?: number;
  /**
   * Takes useChat's tool approval responses (`addToolApprovalResponse`) for tool calls held for
   * approval (`<Tool needsApproval>`), decided as `by` — the person this request is from, as
   * your server authenticated them — and signed with `privateKey` in the key-pair mode. Without
   * it, a request carrying approval responses is refused: the client alone cannot approve.
   */
  toolApprovals?: { by: string; privateKey?: string | KeyObject };
  /**
   * The person this chat belongs to, as your server authenticated them. Recorded when the
   * chat's session is created; every later request of the chat must name the same owner, or
   * it is refused with `ChatOwnerError` (HTTP 403) before anything is added or decided — so
   * knowing (or guessing) a chat id gives no one else its history or its held calls. Needed
   * with `toolApprovals`. A chat created without one stays ownerless, and a request with an
   * owner does not take it over.
   */
  owner?: string;
  /**
   * Who besides the owner may decide this chat's held tool calls (`toolApprovals.by`), e.g. a
   * reviewer; everyone else is refused with `ChatOwnerError`.
   */
  approvers?: readonly string[];
}

/** One of useChat's tool approval responses, as the request carried it (untrusted). */
export interface ChatApprovalResponse {
  id: string;
  approved: boolean;
  reason?: string;
}

/** At most this many approval responses are read from one request. */
const MAX_APPROVAL_RESPONSES = 100;

/** One `useChat` request turned into a session ready to run, and how to save it afterwards. */
export interface ChatTurn {
  /** The chat's session: loaded from the store (or new), with the user's message appended. */
  session: Session;
  /** The user's text taken from the request; absent when the request only asks to go on. */
  userText?: string;
  /** Saves the session under the chat id; pass it as `toUIMessageStream`'s `onFinish`. */
  save: () => Promise<void>;
}

/**
 * Turns a `useChat` request (`{ id, messages }`, or `{ id, message }` when the client sends only
 * the last one) into the next `run()` of the chat's session. Only the last message is read, and
 * only its text: the history, tool calls and results, approvals and everything the assistant
 * said come from the session in the store, never from the client, which could have edited them.
 * A last message from the assistant (`sendMessage()` with no text, after an approval) adds
 * nothing and the run goes on from the stored state.
 */
export async function openChatSession(
  element: ReactNode,
  body: unknown,
  options: ChatSessionOptions,
): Promise<ChatTurn> {
  const {
    store,
    maxMessageChars = DEFAULT_MAX_CHAT_MESSAGE_CHARS,
    toolApprovals,
    owner,
    approvers = [],
    ...sessionOptions
  } = options;
  const request = readRequest(body, maxMessageChars);
  const { chatId } = request;
  if (request.approvals !== undefined && toolApprovals === undefined) {
    throw new ChatRequestError(
      'This chat takes no tool approvals from the page: the request answers held tool calls, but openChatSession was given no `toolApprovals: { by }`.',
    );
  }
  checkDeciders(chatId, owner, approvers, toolApprovals);
  const stored = await store.load(chatId);
  if (stored !== undefined) checkStoredChat(chatId, stored, owner);
  const append: ModelMessage[] =
    request.userText !== undefined ? [{ role: 'user', content: request.userText }] : [];
  // A new chat is saved over revision 0 ("not stored"): of two first messages at once, one
  // creates the chat and the other is refused, as for a stored chat.
  const snapshot: SessionSnapshot =
    stored === undefined
      ? {
          ...createSnapshot(chatId, {
            ...createInitialState(chatId),
            timeline: append,
            ...(owner !== undefined ? { owner } : {}),
          }),
          revision: 0,
        }
      : {
          ...stored,
          state: {
            ...(stored.state as SessionState),
            timeline: [...(stored.state as SessionState).timeline, ...append],
          },
        };
  const session = createSession(element, { ...sessionOptions, store, snapshot });
  if (request.approvals !== undefined && toolApprovals !== undefined) {
    decideFromChat(session, request.approvals, toolApprovals);
  }
  // The message and the decisions are stored at once, over the revision loaded: a request of
  // the same chat that saved in between makes this one a conflict, and neither is lost.
  if (session.revision !== undefined) {
    try {
      await session.save();
    } catch (error) {
      if (StaleSessionError.isInstance(error)) {
        throw new ChatConflictError(
          chatId,
          `another request saved the chat while this one was read (revision ${error.expectedRevision}, now ${error.actualRevision})`,
        );
      }
      throw error;
    }
  }
  return {
    session,
    ...(request.userText !== undefined ? { userText: request.userText } : {}),
    // Over the revision the session knows (its run claimed the chat and released it), so a
    // request racing another on one chat fails instead of dropping the other's turn.
    save: () => {
      const expectedRevision = session.revision;
      return store.save(
        session.snapshot(),
        expectedRevision === undefined ? undefined : { expectedRevision },
      );
    },
  };
}

/** The owner and the decider are names like a decision's `by`; the decider is allowed. */
function checkDeciders(
  chatId: string,
  owner: string | undefined,
  approvers: readonly string[],
  toolApprovals: ChatSessionOptions['toolApprovals'],
): void {
  const problem = owner === undefined ? undefined : decisionTextProblem('`owner`', owner);
  if (problem !== undefined || owner?.trim() === '') {
    throw new ChatOwnerError(chatId, `The chat's owner is not a name: ${problem ?? 'it is blank'}`);
  }
  if (toolApprovals === undefined) return;
  if (owner === undefined) {
    throw new ChatOwnerError(
      chatId,
      'A chat that takes tool approvals needs an owner: pass openChatSession the authenticated user as `owner`, so that no one else can decide its held calls.',
    );
  }
  if (toolApprovals.by !== owner && !approvers.includes(toolApprovals.by)) {
    throw new ChatOwnerError(
      chatId,
      `${JSON.stringify(toolApprovals.by)} may not decide the held calls of chat "${chatId}": only its owner and the approvers given may.`,
    );
  }
}

/** A stored chat is this owner's, and no run of it is in progress. */
function checkStoredChat(chatId: string, stored: SessionSnapshot, owner: string | undefined): void {
  const state = stored.state as SessionState;
  if (state.owner !== owner) {
    throw new ChatOwnerError(
      chatId,
      state.owner === undefined
        ? `Chat "${chatId}" has no owner: it was created without one, and a request with an owner does not take it over.`
        : `Chat "${chatId}" belongs to someone else: this request was refused before anything was read or decided.`,
    );
  }
  const claim = parseClaim(state.status, state.reason);
  if (claim !== undefined && !claimIsDead(claim)) {
    throw new ChatConflictError(
      chatId,
      `a reply to another message is in progress (since ${claim.since})`,
    );
  }
}

interface ChatRequest {
  chatId: string;
  userText?: string;
  /** useChat's approval responses in the last (assistant) message, when it has any. */
  approvals?: ChatApprovalResponse[];
}

/**
 * Applies the page's answers to the calls the session holds: only calls that are pending (an
 * answer to anything else — decided, unknown, made up — changes nothing), as `by`.
 */
function decideFromChat(
  session: Session,
  approvals: readonly ChatApprovalResponse[],
  decider: NonNullable<ChatSessionOptions['toolApprovals']>,
): void {
  const pending = new Set(
    session.state.guards.approvals.calls.filter((r) => r.state === 'pending').map((r) => r.id),
  );
  const keys = decider.privateKey !== undefined ? { privateKey: decider.privateKey } : {};
  for (const answer of approvals) {
    if (!pending.delete(answer.id)) continue;
    if (answer.approved) {
      session.approveToolCall(answer.id, {
        by: decider.by,
        ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
        ...keys,
      });
    } else {
      session.denyToolCall(answer.id, {
        by: decider.by,
        reason: answer.reason ?? 'Denied in the chat.',
        ...keys,
      });
    }
  }
}

/** The approval responses of a message's parts (`state: 'approval-responded'`), bounded. */
function approvalResponses(parts: unknown): ChatApprovalResponse[] {
  if (!Array.isArray(parts)) return [];
  const out: ChatApprovalResponse[] = [];
  for (const part of parts) {
    if (out.length >= MAX_APPROVAL_RESPONSES) break;
    if (
      !isObjectRecord(part) ||
      part.state !== 'approval-responded' ||
      !isObjectRecord(part.approval)
    )
      continue;
    const { id, approved, reason } = part.approval;
    if (typeof id !== 'string' || typeof approved !== 'boolean') continue;
    const text = typeof reason === 'string' ? reason.trim() : '';
    const problem = text === '' ? undefined : decisionTextProblem('The reason', text);
    if (problem !== undefined) {
      throw new ChatRequestError(`An approval response's reason is refused: ${problem}`);
    }
    out.push({ id, approved, ...(text !== '' ? { reason: text } : {}) });
  }
  return out;
}

/** Checks the request's shape and bounds; everything in it is untrusted. */
export function readRequest(body: unknown, maxMessageChars: number): ChatRequest {
  if (!isObjectRecord(body)) throw new ChatRequestError('A chat request must be a JSON object.');
  const chatId = body.id;
  if (typeof chatId !== 'string') {
    throw new ChatRequestError('A chat request needs the chat id as `id` (a string).');
  }
  assertValidSessionId(chatId);
  if (body.trigger !== undefined && body.trigger !== 'submit-message') {
    throw new ChatRequestError(
      `Only "submit-message" requests are served; got trigger ${JSON.stringify(body.trigger)}. ` +
        'The server keeps the chat, so a reply cannot be regenerated from the client.',
    );
  }
  const last = Array.isArray(body.messages) ? body.messages.at(-1) : body.message;
  if (!isObjectRecord(last)) {
    throw new ChatRequestError(
      'A chat request needs `messages` (or `message`) with a last message.',
    );
  }
  if (last.role === 'assistant') {
    const approvals = approvalResponses(last.parts);
    return approvals.length > 0 ? { chatId, approvals } : { chatId };
  }
  if (last.role !== 'user') {
    throw new ChatRequestError(
      `The last message must be the user's (or the assistant's, to go on); got role ${JSON.stringify(last.role)}.`,
    );
  }
  const parts = Array.isArray(last.parts) ? last.parts : [];
  const text = parts
    .filter(
      (part): part is { type: 'text'; text: string } =>
        isObjectRecord(part) && part.type === 'text' && typeof part.text === 'string',
    )
    .map((part) => part.text)
    .join('\n')
    .trim();
  if (text === '') throw new ChatRequestError('The user message has no text.');
  if (text.length > maxMessageChars) {
    throw new ChatRequestError(
      `The user message has ${text.length} characters; at most ${maxMessageChars} are accepted (maxMessageChars).`,
    );
  }
  return { chatId, userText: text };
}
