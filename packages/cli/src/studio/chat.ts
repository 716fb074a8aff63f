import { randomUUID } from 'node:crypto';
import {
  AgateError,
  ChatRequestError,
  nameErrorClass,
  openChatSession,
  type RunResult,
  type Session,
  type SessionStore,
  UnknownSessionError,
} from '@agate/core';
import { isValidSessionId } from '@agate/core/stores';
import type { LanguageModel } from 'ai';
import type { ReactElement } from 'react';
import type { AgentFileOptions } from '../run/load-agent.js';
import type { ChatInfo } from './api-types.js';

/** Characters of one message from the page accepted (a longer one is refused, never cut). */
export const MAX_CHAT_MESSAGE_CHARS = 16_000;

/** The agent `agate studio --agent` talks to, with the model the CLI chose for it. */
export interface StudioAgent {
  /** The agent file as given on the command line (shown on the page). */
  file: string;
  element: ReactElement;
  options: AgentFileOptions;
  model: LanguageModel;
  /** What the model is, as `agate run` prints it. */
  modelDescription: string;
  /** The run's shared secret (`AGATE_APPROVAL_KEY`), when one is set; never a private key. */
  approvalKey?: string;
}

/**
 * A message (or a decision) for a session while a run of the studio is in progress: one run
 * at a time, so nothing the page sends races a tick. Answer it with HTTP 409; nothing was added.
 */
export class StudioBusyError extends AgateError {
  static {
    nameErrorClass(StudioBusyError, 'StudioBusyError');
  }
  readonly sessionId: string;
  constructor(sessionId: string, what: string) {
    super(
      `Session "${sessionId}" is running a tick: ${what} was not taken. Send it again when the run has ended (the page shows it).`,
    );
    this.sessionId = sessionId;
  }
}

/** What the page sent (untrusted), once checked. */
interface ChatMessage {
  sessionId?: string;
  text?: string;
}

/**
 * The studio's conversations with one agent. A message starts a run of the session it names
 * (stored in the studio's store, as `agate run --store` keeps it), or of a new one; the run goes
 * on in the background while the page watches its ticks (the `live` session), and its end is
 * saved. A message with no text goes on from the stored state (after a decision). One run at a
 * time: another message meanwhile is a `StudioBusyError`.
 */
export class StudioChat {
  private current: Session | undefined;
  /** Set from the first check to the run's start: two messages at once cannot both pass. */
  private starting: string | undefined;
  private lastError: { sessionId: string; message: string } | undefined;
  /** Ends the run in progress when the studio closes (Ctrl-C). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly agent: StudioAgent,
    private readonly store: SessionStore,
    private readonly changed: (sessionId: string) => void,
  ) {}

  /** The session whose run is in progress, if any (the page shows its ticks live). */
  get running(): Session | undefined {
    return this.current;
  }

  /** Refuses a change to the session a run holds (its end would overwrite it). */
  assertIdle(sessionId: string, what: string): void {
    const busy = this.current?.id ?? this.starting;
    if (busy === sessionId) throw new StudioBusyError(sessionId, what);
  }

  info(): ChatInfo {
    const busy = this.current?.id ?? this.starting;
    return {
      agent: this.agent.file,
      model: this.agent.modelDescription,
      maxMessageChars: MAX_CHAT_MESSAGE_CHARS,
      ...(busy !== undefined ? { running: busy } : {}),
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
    };
  }

  /**
   * Adds the page's message to its session (stored at once) and starts the run; resolves with
   * the session's id as soon as the run has started, not when it ends.
   */
  async send(body: unknown): Promise<{ sessionId: string }> {
    const message = readChatMessage(body);
    const busy = this.current?.id ?? this.starting;
    if (busy !== undefined) {
      throw new StudioBusyError(busy, message.text !== undefined ? 'the message' : 'going on');
    }
    const sessionId = message.sessionId ?? randomUUID();
    this.starting = sessionId;
    try {
      if (message.text === undefined && (await this.store.load(sessionId)) === undefined) {
        throw new UnknownSessionError(sessionId, 'the studio store');
      }
      // The studio owns where the session lives and what it is seeded from: the file's
      // store, id and seed state are `agate run`'s, not a conversation's.
      const {
        store: _fileStore,
        id: _id,
        state: _state,
        model: _fileModel,
        onEvent,
        ...options
      } = this.agent.options;
      const turn = await openChatSession(
        this.agent.element,
        {
          id: sessionId,
          message:
            message.text !== undefined
              ? { role: 'user', parts: [{ type: 'text', text: message.text }] }
              : { role: 'assistant', parts: [] },
        },
        {
          ...options,
          store: this.store,
          model: this.agent.model,
          maxMessageChars: MAX_CHAT_MESSAGE_CHARS,
          // The page shows each tick: what the model saw, its diff, the gates' decisions.
          tickLog: options.tickLog ?? true,
          signal: this.stopping.signal,
          ...(this.agent.approvalKey !== undefined ? { approvalKey: this.agent.approvalKey } : {}),
          ...(onEvent !== undefined ? { onEvent } : {}),
        },
      );
      this.current = turn.session;
      this.lastError = undefined;
      void this.runToEnd(turn.session, turn.save);
      return { sessionId };
    } finally {
      this.starting = undefined;
    }
  }

  /** Runs, saves the end, and tells the page at each tick and at the end. */
  private async runToEnd(session: Session, save: () => Promise<void>): Promise<void> {
    const stop = session.subscribe(() => this.changed(session.id), {
      types: ['tick:start', 'tick:end', 'run:end'],
    });
    this.changed(session.id);
    let result: RunResult | undefined;
    try {
      result = await session.run();
      await save();
    } catch (error) {
      this.lastError = { sessionId: session.id, message: errorText(error) };
    } finally {
      stop();
      if (result?.status === 'error' && result.error !== undefined) {
        this.lastError = { sessionId: session.id, message: errorText(result.error) };
      }
      this.current = undefined;
      session.dispose();
      this.changed(session.id);
    }
  }

  /** Aborts the run in progress, if any; no run starts after. */
  abort(): void {
    this.stopping.abort(new Error('the studio was stopped'));
  }

  /** Resolves once no run is in progress (tests, and the studio's close). */
  async idle(): Promise<void> {
    while (this.current !== undefined || this.starting !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** `{ sessionId?, text? }`, checked: a known shape, a valid id, a bounded text. */
export function readChatMessage(body: unknown): ChatMessage {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ChatRequestError(
      'Send the message as a JSON object: {"text": "…"}, with "sessionId" to go on with a session.',
    );
  }
  const fields = body as { [name: string]: unknown };
  const { sessionId, text } = fields;
  if (sessionId !== undefined && !isValidSessionId(sessionId)) {
    throw new ChatRequestError(
      `"sessionId" must be a session id (letters, digits, ".", "_", "-", at most 128), not ${JSON.stringify(sessionId)?.slice(0, 80)}.`,
    );
  }
  if (text !== undefined && typeof text !== 'string') {
    throw new ChatRequestError('"text" must be a string.');
  }
  const trimmed = text?.trim();
  if (trimmed !== undefined && trimmed.length > MAX_CHAT_MESSAGE_CHARS) {
    throw new ChatRequestError(
      `The message has ${trimmed.length} characters; at most ${MAX_CHAT_MESSAGE_CHARS} are accepted.`,
    );
  }
  const message = trimmed === '' ? undefined : trimmed;
  if (message === undefined && sessionId === undefined) {
    throw new ChatRequestError('Write a message ("text"), or name the session to go on with.');
  }
  return {
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(message !== undefined ? { text: message } : {}),
  };
}

/** Characters of a failed run's message the page is sent (a provider may answer pages of it). */
const MAX_ERROR_CHARS = 2_000;

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}
