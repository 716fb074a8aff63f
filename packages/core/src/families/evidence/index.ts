export { checkStepEvidence, describeEvidence, type EvidenceCheck } from './check-step-evidence.js';
export { EVIDENCE_FAMILY, EvidenceGuard, type TodosConfig } from './evidence-guard.js';
export {
  type CommandMatch,
  createLedger,
  LEDGER_CAP,
  type Ledger,
  type PathEvidenceKind,
  type PathsMatch,
  type Receipt,
  type ReceiptEvidence,
  type ReceiptInput,
  type SignOff,
} from './evidence-ledger.js';
export type { EvidenceSpec } from './evidence-spec.js';
export { normalizeCommand, normalizePath, textKey } from './normalize.js';
export { matchStep, type StepMatch } from './step-match.js';
export { COMPLETE_STEP_TOOL, TODO_WRITE_TOOL } from './todo-tools.js';
export {
  blockingItems,
  checkTodoWrite,
  incompleteItems,
  type SignedStep,
  type TodoWriteCheck,
} from './todo-transition.js';
export type {
  StepEvidenceInput,
  TodoEvidence,
  TodoInput,
  TodoItem,
  TodoStatus,
  TodosState,
} from './todo-types.js';
export { Todos, type TodosProps, useTodos } from './todos.js';
