import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { UsageTotals } from '../state/session-state.js';
import { otel } from './otel-api.js';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from './semconv.js';

/**
 * The three GenAI span shapes, as plain functions of a tracer and a parent context, so any
 * code that runs an agent (a session's run, a sub-agent called from a tool) names and
 * attributes them the same way. Each returns the started span; the caller ends it.
 */

/** Who the agent is and which conversation this invocation belongs to. */
export interface AgentInvocation {
  /** `gen_ai.agent.name`; the span is named `invoke_agent {name}`. */
  name: string;
  /** `gen_ai.conversation.id`: the session id, shared by every run of one session. */
  conversationId: string;
  /** `gen_ai.provider.name` and `gen_ai.request.model`, when the agent's model is known. */
  provider?: string;
  model?: string;
  /** More attributes (Agate's own go under `agate.*`). */
  attributes?: Attributes;
}

/**
 * `invoke_agent {name}`: one invocation of an agent in this process (span kind INTERNAL, as the
 * conventions allow for in-process agents). Started under `parent`, so a sub-agent invoked
 * from a tool call's `execute` (whose span is active) nests under that `execute_tool` span.
 */
export function startInvokeAgentSpan(
  tracer: Tracer,
  invocation: AgentInvocation,
  parent: Context,
): Span {
  return tracer.startSpan(
    `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${invocation.name}`,
    {
      kind: otel().SpanKind.INTERNAL,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
        [ATTR_GEN_AI_AGENT_NAME]: invocation.name,
        [ATTR_GEN_AI_CONVERSATION_ID]: invocation.conversationId,
        ...(invocation.provider !== undefined
          ? { [ATTR_GEN_AI_PROVIDER_NAME]: invocation.provider }
          : {}),
        ...(invocation.model !== undefined
          ? { [ATTR_GEN_AI_REQUEST_MODEL]: invocation.model }
          : {}),
        ...invocation.attributes,
      },
    },
    parent,
  );
}

/** A model call as the conventions see it, before the answer. */
export interface ChatRequest {
  provider: string;
  model: string;
  /** `server.address` / `server.port`: where the provider's API is, when it can be told. */
  server?: ServerAddress;
  attributes?: Attributes;
}

export interface ServerAddress {
  address: string;
  port: number;
}

/** `chat {model}`: one model call (span kind CLIENT). */
export function startChatSpan(tracer: Tracer, request: ChatRequest, parent: Context): Span {
  return tracer.startSpan(
    `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${request.model}`,
    {
      kind: otel().SpanKind.CLIENT,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
        [ATTR_GEN_AI_PROVIDER_NAME]: request.provider,
        [ATTR_GEN_AI_REQUEST_MODEL]: request.model,
        ...(request.server !== undefined
          ? {
              [ATTR_SERVER_ADDRESS]: request.server.address,
              [ATTR_SERVER_PORT]: request.server.port,
            }
          : {}),
        ...request.attributes,
      },
    },
    parent,
  );
}

/** What came back from a model call. */
export interface ChatResponse {
  /** The model that answered (`gen_ai.response.model`), when the provider said. */
  model?: string;
  /** The provider's id of the answer (`gen_ai.response.id`). */
  id?: string;
  /** In the conventions' spelling (`stop`, `tool_call`, `length`, ...). */
  finishReasons: string[];
  usage: Pick<UsageTotals, 'inputTokens' | 'outputTokens'>;
}

/** The response attributes of a `chat` span; token usage lives on model spans only. */
export function chatResponseAttributes(response: ChatResponse): Attributes {
  return {
    ...(response.model !== undefined ? { [ATTR_GEN_AI_RESPONSE_MODEL]: response.model } : {}),
    ...(response.id !== undefined ? { [ATTR_GEN_AI_RESPONSE_ID]: response.id } : {}),
    [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: response.finishReasons,
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: response.usage.inputTokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: response.usage.outputTokens,
  };
}

/** A tool call as the conventions see it. */
export interface ToolInvocation {
  name: string;
  callId: string;
  /** The description the model was given (`gen_ai.tool.description`). */
  description?: string;
  attributes?: Attributes;
}

/** `execute_tool {name}`: one tool call (span kind INTERNAL). */
export function startExecuteToolSpan(tracer: Tracer, call: ToolInvocation, parent: Context): Span {
  const { description } = call;
  return tracer.startSpan(
    `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${call.name}`,
    {
      kind: otel().SpanKind.INTERNAL,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        [ATTR_GEN_AI_TOOL_NAME]: call.name,
        [ATTR_GEN_AI_TOOL_CALL_ID]: call.callId,
        [ATTR_GEN_AI_TOOL_TYPE]: 'function',
        ...(description !== undefined && description !== ''
          ? { [ATTR_GEN_AI_TOOL_DESCRIPTION]: description }
          : {}),
        ...call.attributes,
      },
    },
    parent,
  );
}

/** `parent` with `span` active: the context to start a child of `span` in. */
export function within(parent: Context, span: Span): Context {
  return otel().trace.setSpan(parent, span);
}
