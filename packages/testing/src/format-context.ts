import type { CompiledContext, CompiledTool, ContextBudgetReport } from '@agate/core/guards';
import type { ModelMessage } from 'ai';
import { type ZodType, z } from 'zod';

/**
 * A stable, readable text form of a compiled context: what a person wants to read in a
 * snapshot file and in a diff. Sections appear in request order; empty ones are omitted.
 */
export function formatContext(context: CompiledContext): string {
  const out: string[] = [];
  if (context.system !== '') out.push(section('system', context.system));
  if (context.messages.length > 0) {
    out.push(
      section(
        `messages (${context.messages.length})`,
        context.messages.map(formatMessage).join('\n'),
      ),
    );
  }
  if (context.ephemeral.length > 0) {
    out.push(
      section(
        `ephemeral (${context.ephemeral.length})`,
        context.ephemeral
          .map((b) => (b.source ? `[${b.source}] ${indentRest(b.text)}` : b.text))
          .join('\n'),
      ),
    );
  }
  if (context.tools.length > 0) {
    out.push(section(`tools (${context.tools.length})`, context.tools.map(formatTool).join('\n')));
  }
  if (context.knobs.length > 0) {
    out.push(
      section(
        'knobs',
        context.knobs
          .map(
            (k) =>
              `${k.name} = ${JSON.stringify(k.value)}${k.options ? ` (options: ${k.options.map((o) => JSON.stringify(o)).join(', ')})` : ''}`,
          )
          .join('\n'),
      ),
    );
  }
  if (context.gates.length > 0) {
    out.push(
      section(
        'gates',
        context.gates
          .map(
            (g) =>
              `${g.name}: ${g.state} (cleared by ${g.clearableBy}; exit attempts refused ${g.blocks}/${g.maxBlocks})`,
          )
          .join('\n'),
      ),
    );
  }
  if (context.budget !== undefined) out.push(formatBudget(context, context.budget));
  return out.join('\n\n');
}

/** Budget use per element, in request order (only with a context budget). */
function formatBudget(context: CompiledContext, budget: ContextBudgetReport): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const lines: string[] = [];
  const row = (label: string, tokens: number) => lines.push(`${label}: ${n(tokens)}`);
  if (context.system !== '') row('system', budget.system);
  context.messages.forEach((message, i) => {
    row(`message ${i + 1} [${message.role}]`, budget.messages[i] ?? 0);
  });
  context.ephemeral.forEach((block, i) => {
    row(`ephemeral ${i + 1}${block.source ? ` [${block.source}]` : ''}`, budget.ephemeral[i] ?? 0);
  });
  context.tools.forEach((tool, i) => {
    row(`tool ${tool.name}`, budget.tools[i] ?? 0);
  });
  const { dropped } = budget;
  const parts = [
    dropped.messages > 0 ? `${n(dropped.messages)} messages` : '',
    dropped.system > 0 ? `${n(dropped.system)} system elements` : '',
    dropped.ephemeral > 0 ? `${n(dropped.ephemeral)} ephemeral blocks` : '',
  ].filter((p) => p !== '');
  lines.push(
    parts.length > 0
      ? `dropped: ${parts.join(', ')} (${n(budget.unpruned)} tokens before pruning)`
      : 'dropped: nothing',
  );
  return section(
    `budget: ${n(budget.tokens)} of ${n(budget.maxTokens)} tokens (low water ${n(budget.lowWater)})`,
    lines.join('\n'),
  );
}

function section(title: string, body: string): string {
  return `=== ${title} ===\n${body}`;
}

/**
 * Indents continuation lines but leaves blank lines empty: editors strip trailing spaces in
 * snapshot files, which would break the snapshot.
 */
function indentRest(text: string, indent = '  '): string {
  return text.replace(/\n(?=[^\n])/g, `\n${indent}`);
}

function formatMessage(message: ModelMessage): string {
  if (typeof message.content === 'string')
    return `[${message.role}] ${indentRest(message.content)}`;
  const lines: string[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        lines.push(`[${message.role}] ${indentRest(part.text)}`);
        break;
      case 'reasoning':
        lines.push(`[${message.role}:reasoning] ${indentRest(part.text)}`);
        break;
      case 'tool-call':
        lines.push(
          `[${message.role}] call ${part.toolName}#${part.toolCallId} ${json(part.input)}`,
        );
        break;
      case 'tool-result': {
        const output = part.output;
        const isError = output.type === 'error-text' || output.type === 'error-json';
        const value = 'value' in output ? output.value : output.type;
        lines.push(
          `[tool] ${part.toolName}#${part.toolCallId} ${isError ? 'error' : '->'} ${indentRest(
            typeof value === 'string' ? value : json(value),
          )}`,
        );
        break;
      }
      default:
        lines.push(`[${message.role}] <${part.type}>`);
    }
  }
  return lines.join('\n');
}

function formatTool(tool: CompiledTool): string {
  const head = `${tool.name}${schemaSummary(tool.inputSchema)}`;
  return tool.description ? `${head}\n  ${indentRest(tool.description)}` : head;
}

function schemaSummary(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null || !('_zod' in schema)) return '';
  try {
    const json = z.toJSONSchema(schema as ZodType, { unrepresentable: 'any' }) as JsonSchema;
    return ` ${typeOf(json)}`;
  } catch {
    return '';
  }
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
}

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  if (schema.type === 'object' || schema.properties) {
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties ?? {}).map(
      ([key, value]) => `${key}${required.has(key) ? '' : '?'}: ${typeOf(value)}`,
    );
    return `{ ${fields.join(', ')} }`.replace('{  }', '{}');
  }
  if (schema.type === 'array') return `${schema.items ? typeOf(schema.items) : 'unknown'}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return schema.type ?? 'unknown';
}

function json(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}
