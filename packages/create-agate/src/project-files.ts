import { chatProjectFiles } from './chat-template.js';
import { codingProjectFiles } from './coding-template.js';
import { DURABLE_AGATE_PACKAGES, durableProjectFiles } from './durable-template.js';
import {
  AGATE_PACKAGES,
  type AgatePackage,
  defaultProjectFiles,
  type TemplateName,
  type TemplateOptions,
} from './templates.js';

/** Every file of a new project of `options.template`, by path relative to its directory. */
export function projectFiles(options: TemplateOptions): Record<string, string> {
  switch (options.template ?? 'default') {
    case 'chat':
      return chatProjectFiles(options);
    case 'coding':
      return codingProjectFiles(options);
    case 'durable':
      return durableProjectFiles(options);
    case 'default':
      return defaultProjectFiles(options);
  }
}

/** The Agate packages a template's project depends on: `--from` needs a tarball of each. */
export function agatePackagesOf(template: TemplateName): readonly AgatePackage[] {
  return template === 'durable' ? DURABLE_AGATE_PACKAGES : AGATE_PACKAGES;
}
