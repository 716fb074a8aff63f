export { main, type Output } from './main.js';
export {
  nextSteps,
  packageName,
  ScaffoldError,
  type ScaffoldOptions,
  type ScaffoldResult,
  scaffold,
} from './scaffold.js';
export { projectFiles, type TemplateOptions, THIRD_PARTY } from './templates.js';
export { VERSION } from './version.js';
