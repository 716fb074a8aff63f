import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/slice.js';
import { TODO_STATUSES } from './types.js';

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
