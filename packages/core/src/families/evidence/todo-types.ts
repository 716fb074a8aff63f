/**
 * The states of a todo item. `dropped`: deliberately not done, with a reason the rendered list,
 * `RunResult.todos` and the supervisor see; an item that is not completed can leave the list
 * only this way.
 */
export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'dropped'] as const;

/** Where a todo item stands. */
export type TodoStatus = (typeof TODO_STATUSES)[number];

/**
 * What an item was signed off with (`complete_step`), as the host checked it. Persistent: it
 * lives with the item in the session state and shows in the rendered list. The receipts it
 * was checked against do not: they last one turn.
 */
export interface TodoEvidence {
  /** True when the host checked at least one receipt (`verification`, `files` or `diff`). */
  verified: boolean;
  /** The command of a successful `command` receipt (whitespace collapsed). */
  command?: string;
  /** Normalized paths backed by a read or edit receipt. */
  files?: string[];
  /** Normalized paths backed by an edit receipt. */
  diff?: string[];
  /** The model's own account, accepted as it is and never verified. */
  manual?: string;
  /** The tick of the sign-off. */
  tick: number;
}

/** One item of the `<Todos>` list the model keeps. */
export interface TodoItem {
  /** What to do, imperative: "Run the tests". */
  content: string;
  /** The same while it is being done: "Running the tests". */
  activeForm: string;
  /** Where the item stands. */
  status: TodoStatus;
  /** With status `dropped`: why it is not done (required). */
  reason?: string;
  /** Set by a successful `complete_step`; kept while the item keeps its content. */
  evidence?: TodoEvidence;
}

/** The todo list in the session state (persistent, in snapshots). */
export interface TodosState {
  items: TodoItem[];
  /** Exit attempts `<Todos requireComplete>` has refused since the list was last complete. */
  blocks: number;
}

/** An item as the model writes it with `todo_write`. */
export type TodoInput = Pick<TodoItem, 'content' | 'activeForm' | 'status' | 'reason'>;

/** `complete_step`'s `evidence` argument. */
export interface StepEvidenceInput {
  verification?: string;
  files?: string[];
  diff?: string[];
  manual?: string;
}
