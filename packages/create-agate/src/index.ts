export { main, type Output } from './main.js';
export { projectFiles } from './project-files.js';
export {
  nextSteps,
  packageName,
  ScaffoldError,
  type ScaffoldOptions,
  type ScaffoldResult,
  scaffold,
  templateNamed,
} from './scaffold.js';
export {
  TEMPLATE_NAMES,
  type TemplateName,
  type TemplateOptions,
  THIRD_PARTY,
} from './templates.js';
export { VERSION } from './version.js';
