import type { ReactNode } from 'react';
import { InvalidElementError } from '../../components/render-errors.js';
import { DEFAULT_MAX_BLOCKS } from '../../guard-seam/exit-refusal-text.js';
import { useSessionContext } from '../../runtime/session-context.js';
import { useDeclaration } from '../../runtime/use-declaration.js';
import { EVIDENCE_FAMILY, type TodosConfig } from './evidence-guard.js';
import type { TodoItem } from './todo-types.js';

/** Props of `<Todos>`: whether unfinished items block finishing. */
export interface TodosProps {
  /** Block finishing, like a gate, while any item is not completed. Default false. */
  requireComplete?: boolean;
  /** With `requireComplete`: exit attempts refused before the run ends `blocked`. Default 5. */
  maxBlocks?: number;
}

/**
 * A host-verified todo list. Gives the model `todo_write` and `complete_step` and shows the
 * current list (content, activeForm, status, evidence) as ephemeral content every tick; the
 * evidence family (`guard.ts`) does the rest. Renders nothing itself.
 */
export function Todos(props: TodosProps): ReactNode {
  const maxBlocks = props.maxBlocks ?? DEFAULT_MAX_BLOCKS;
  if (!Number.isInteger(maxBlocks) || maxBlocks < 0) {
    throw new InvalidElementError(
      `<Todos maxBlocks=${JSON.stringify(props.maxBlocks)}> needs a whole number >= 0.`,
    );
  }
  const config: TodosConfig = { requireComplete: props.requireComplete === true, maxBlocks };
  useDeclaration('<Todos>', {
    kind: 'guard',
    family: EVIDENCE_FAMILY,
    name: `${EVIDENCE_FAMILY}:todos`,
    config,
  });
  return null;
}

/** The todo list as of this render (the list in `session.state.todos.items`). */
export function useTodos(): readonly TodoItem[] {
  return useSessionContext('useTodos()').state.guards.todos.items;
}
