import { z } from 'zod';
import type { CompiledTool } from '../../renderer/compiled-context.js';
import { TODO_STATUSES } from './todo-types.js';

export const TODO_WRITE_TOOL = 'todo_write';
export const COMPLETE_STEP_TOOL = 'complete_step';

/*
 * The schemas and descriptions are constants: nothing about the list or the receipts ever
 * reaches them, so the request's tools stay byte-identical across ticks (prompt caches hit)
 * and the model cannot learn from them what the host has seen.
 */

const todoItem = z.object({
  content: z.string().min(1).describe('What to do, imperative: "Run the tests".'),
  activeForm: z.string().min(1).describe('The same while doing it: "Running the tests".'),
  status: z.enum(TODO_STATUSES),
  reason: z
    .string()
    .optional()
    .describe("With status 'dropped': why the item will not be done (required)."),
});

export const todoWriteInput = z.object({
  todos: z.array(todoItem).describe('The whole list, in order; it replaces the current one.'),
});

export const completeStepInput = z.object({
  step: z
    .union([z.string().min(1), z.number().int()])
    .describe('The item: its content, its activeForm, or its 1-based number in the list.'),
  evidence: z
    .object({
      verification: z
        .string()
        .optional()
        .describe(
          'The exact command you ran in this turn that shows the step is done (it must have succeeded).',
        ),
      files: z.array(z.string()).optional().describe('Paths you read or edited in this turn.'),
      diff: z.array(z.string()).optional().describe('Paths you edited in this turn.'),
      manual: z
        .string()
        .optional()
        .describe('Your own account, when nothing you ran shows it. Recorded as unverified.'),
    })
    .describe('At least one field.'),
});

export type TodoWriteInput = z.output<typeof todoWriteInput>;
export type CompleteStepInput = z.output<typeof completeStepInput>;

const TODO_WRITE_DESCRIPTION =
  "Replace the todo list (content, activeForm, status for each item). Marking an item completed is accepted only after complete_step signed it off in this turn. An item that is not completed stays in the list: to give one up, set its status to 'dropped' with a reason.";
const COMPLETE_STEP_DESCRIPTION =
  'Sign off one todo item with evidence the host checks against the tool calls of this turn: a command you ran (verification), files you read or edited (files), files you edited (diff), or a manual account (unverified). Then mark the item completed with todo_write.';

/** The two runtime tools `<Todos>` gives the model, bound to one session's guard. */
export function createTodoTools(handlers: {
  write: (input: TodoWriteInput) => string;
  complete: (input: CompleteStepInput) => string;
}): { todoWrite: CompiledTool; completeStep: CompiledTool } {
  return {
    todoWrite: {
      name: TODO_WRITE_TOOL,
      description: TODO_WRITE_DESCRIPTION,
      inputSchema: todoWriteInput,
      execute: (input: never) => handlers.write(input as TodoWriteInput),
      source: 'runtime',
    },
    completeStep: {
      name: COMPLETE_STEP_TOOL,
      description: COMPLETE_STEP_DESCRIPTION,
      inputSchema: completeStepInput,
      execute: (input: never) => handlers.complete(input as CompleteStepInput),
      source: 'runtime',
    },
  };
}
