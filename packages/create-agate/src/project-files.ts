import { chatProjectFiles } from './chat-template.js';
import { codingProjectFiles } from './coding-template.js';
import { defaultProjectFiles, type TemplateOptions } from './templates.js';

/** Every file of a new project of `options.template`, by path relative to its directory. */
export function projectFiles(options: TemplateOptions): Record<string, string> {
  switch (options.template ?? 'default') {
    case 'chat':
      return chatProjectFiles(options);
    case 'coding':
      return codingProjectFiles(options);
    case 'default':
      return defaultProjectFiles(options);
  }
}
