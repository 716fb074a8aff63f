export { EVIDENCE_FAMILY, EvidenceGuard, type TodosConfig } from './guard.js';
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
} from './ledger.js';
export { normalizeCommand, normalizePath, textKey } from './normalize.js';
export type { EvidenceSpec } from './spec.js';
export { matchStep, type StepMatch } from './step-match.js';
export { Todos, type TodosProps, useTodos } from './todos.js';
export { COMPLETE_STEP_TOOL, TODO_WRITE_TOOL } from './tools.js';
export {
  blockingItems,
  checkTodoWrite,
  incompleteItems,
  type SignedStep,
  type TodoWriteCheck,
} from './transition.js';
export type {
  StepEvidenceInput,
  TodoEvidence,
  TodoInput,
  TodoItem,
  TodoStatus,
  TodosState,
} from './types.js';
export { checkStepEvidence, describeEvidence, type EvidenceCheck } from './verify.js';
