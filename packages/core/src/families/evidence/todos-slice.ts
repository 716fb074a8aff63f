import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';
import { sliceWithLazySchema } from '../lazy-slice.js';
import { TODO_STATUSES } from './todo-types.js';

const todoItem = () =>
  z.looseObject({
    content: z.string(),
    status: z.enum(TODO_STATUSES),
  });

/** The evidence family's slice (`state.guards.todos`): the todo list and its exit refusals. */
export const todosSlice: FamilySlice<'todos'> = sliceWithLazySchema(
  'todos',
  () => ({ items: [], blocks: 0 }),
  () => z.looseObject({ items: z.array(todoItem()), blocks: countSchema }),
);
