import { readFile } from 'node:fs/promises';
import type { ScriptedModel, ScriptedReply, scriptedModel } from '@agate/testing';
import { z } from 'zod';
import { CliError, ExitCode } from '../errors.js';

const toolCall = z.strictObject({
  toolName: z.string().min(1),
  input: z.unknown().optional(),
  toolCallId: z.string().optional(),
});

const reply = z.strictObject({
  text: z.string().optional(),
  reasoning: z.string().optional(),
  toolCalls: z.array(toolCall).optional(),
  usage: z
    .strictObject({
      inputTokens: z.number().int().min(0).optional(),
      outputTokens: z.number().int().min(0).optional(),
    })
    .optional(),
  finishReason: z
    .enum(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'other'])
    .optional(),
  /** A provider error: the message of the error the call fails with. */
  error: z.string().optional(),
  delayMs: z.number().int().min(0).optional(),
});

const turn = z.union([z.string(), reply]);

/** A script file: a list of turns, or `{ turns, whenExhausted?, modelId? }`. */
export const scriptSchema = z.union([
  z.array(turn),
  z.strictObject({
    turns: z.array(turn),
    whenExhausted: z.enum(['error', 'repeat-last']).optional(),
    modelId: z.string().optional(),
  }),
]);

export type ScriptFile = z.infer<typeof scriptSchema>;

/** Reads a JSON script for `scriptedModel`; a file that is not one is a usage error naming the problem. */
export async function loadScriptedModel(path: string): Promise<ScriptedModel> {
  return scriptedModelFrom(await readScript(path), await loadScriptedModelFactory());
}

/** A script as `scriptedModel` plays it: from `turn` (1-based) on. */
export interface ScriptFrom {
  model: ScriptedModel;
  /** The turn the model plays first, 1-based. */
  turn: number;
  /** The script's turns in all. */
  total: number;
}

/**
 * The script from its turn `turn` (1-based) on, so a resumed run goes on where the script left
 * off instead of replaying its first turns. A turn past the script's end is a usage error
 * naming the fix, unless the script repeats its last turn when exhausted.
 */
export async function loadScriptFrom(path: string, turn: number, why: string): Promise<ScriptFrom> {
  const script = await readScript(path);
  const { turns, whenExhausted, modelId } = Array.isArray(script) ? { turns: script } : script;
  if (turn > turns.length && !(whenExhausted === 'repeat-last' && turns.length > 0)) {
    throw new CliError(
      `The script ${path} has ${turns.length} turn${turns.length === 1 ? '' : 's'}, and the run would start at turn ${turn} (${why}). ` +
        'Add the turns that follow to the script, or pick the first turn with --script-turn <n>.',
      ExitCode.usage,
    );
  }
  const from = Math.min(turn, turns.length);
  const rest: ScriptFile = {
    turns: turns.slice(from - 1),
    ...(whenExhausted !== undefined ? { whenExhausted } : {}),
    ...(modelId !== undefined ? { modelId } : {}),
  };
  return {
    model: scriptedModelFrom(rest, await loadScriptedModelFactory()),
    turn: from,
    total: turns.length,
  };
}

async function readScript(path: string): Promise<ScriptFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(
      `Cannot read the script ${path}: ${error instanceof Error ? error.message : String(error)}`,
      ExitCode.usage,
      { cause: error },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `The script ${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}).`,
      ExitCode.usage,
      { cause: error },
    );
  }
  const parsed = scriptSchema.safeParse(data);
  if (!parsed.success) {
    throw new CliError(
      `The script ${path} is not a list of model turns:\n${z.prettifyError(parsed.error)}\n` +
        'Each turn is a string (the reply text) or { text?, reasoning?, toolCalls?: [{ toolName, input? }], usage?, finishReason?, error?, delayMs? }.',
      ExitCode.usage,
    );
  }
  return parsed.data;
}

/** `scriptedModel` from `@agate/testing`. */
export type ScriptedModelFactory = typeof scriptedModel;

/**
 * `@agate/testing` is an optional peer of the CLI (only `--scripted` needs it), so it is
 * imported here, when a script is given, with the command that installs it if it is missing.
 */
async function loadScriptedModelFactory(): Promise<ScriptedModelFactory> {
  try {
    return (await import('@agate/testing')).scriptedModel;
  } catch (error) {
    throw new CliError(
      '--scripted runs the agent on a scripted model from @agate/testing, which is not installed ' +
        'next to agate. Install it in your project: npm install --save-dev @agate/testing',
      ExitCode.usage,
      { cause: error },
    );
  }
}

/** A scripted model from a parsed script, made by `scriptedModel` of `@agate/testing`. */
export function scriptedModelFrom(
  script: ScriptFile,
  scriptedModel: ScriptedModelFactory,
): ScriptedModel {
  const { turns, whenExhausted, modelId } = Array.isArray(script) ? { turns: script } : script;
  return scriptedModel(
    turns.map((t): string | ScriptedReply => {
      if (typeof t === 'string') return t;
      const { error, ...rest } = t;
      return error === undefined ? rest : { ...rest, error: new Error(error) };
    }),
    {
      ...(whenExhausted !== undefined ? { whenExhausted } : {}),
      modelId: modelId ?? 'scripted',
    },
  );
}
