import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';
import { TODO_STATUSES } from './todo-types.js';

const todoItem = () =>
  z.looseObject({
    content: z.string(),
    status: z.enum(TODO_STATUSES),
  });

/**
 * The slice's schema, built on its first read (only a restored session's check reads it), not
 * at import: zod builds a schema as it is declared (issue 51 item 4).
 */
let schema: z.ZodType | undefined;

/** The evidence family's slice (`state.guards.todos`): the todo list and its exit refusals. */
export const todosSlice: FamilySlice<'todos'> = {
  name: 'todos',
  initialState: () => ({ items: [], blocks: 0 }),
  get stateSchema() {
    schema ??= z.looseObject({ items: z.array(todoItem()), blocks: countSchema });
    return schema;
  },
};
