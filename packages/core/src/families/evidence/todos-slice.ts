import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';
import { TODO_STATUSES } from './todo-types.js';

const todoItem = z.looseObject({
  content: z.string(),
  status: z.enum(TODO_STATUSES),
});

/** The evidence family's slice (`state.guards.todos`): the todo list and its exit refusals. */
export const todosSlice: FamilySlice<'todos'> = {
  name: 'todos',
  initialState: () => ({ items: [], blocks: 0 }),
  stateSchema: z.looseObject({ items: z.array(todoItem), blocks: countSchema }),
};
