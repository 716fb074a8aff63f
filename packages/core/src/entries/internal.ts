// @agate/core/internal: what the other @agate packages need of the core and nobody else should.
// Not covered by semver: any release may change it.

export {
  APPROVAL_KEY_ENV,
  APPROVAL_KEY_FILE_ENV,
  APPROVAL_PUBLIC_KEY_ENV,
} from '../families/checkpoints/index.js';
export { subAgentElement } from '../families/sub-agents/sub-agent-element.js';
export type { DurableSteps, ToolStepRecord } from '../runtime/durable-steps.js';
export type { ModelTurn } from '../runtime/model-call.js';
