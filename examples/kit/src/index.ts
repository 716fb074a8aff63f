export {
  FileTools,
  type FileToolsProps,
  type FileToolText,
  WORKSPACE_TOOL_TEXT,
} from './file-tools.js';
export {
  createPrinter,
  formatResult,
  type PrinterOptions,
  preview,
  type ResultOptions,
} from './print.js';
export { runNodeTests, type TestRun } from './run-tests.js';
export {
  defineWorkspace,
  type Workspace,
  type WorkspaceOptions,
  WorkspacePathError,
  workspaceTracker,
} from './workspace.js';
