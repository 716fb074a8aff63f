import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SessionOptions } from '@agate/core';
import { createElement, isValidElement, type ReactElement } from 'react';
import { CliError, ExitCode } from '../errors.js';
import { resolveAgentImportsFromCli } from './agent-resolution.js';
import { registerAgentTypeScript } from './typescript-loader.js';

/** What an agent file may export as `options`: any session option but those the CLI owns. */
export type AgentFileOptions = Partial<Omit<SessionOptions, 'snapshot' | 'signal'>>;

export interface LoadedAgent {
  element: ReactElement;
  options: AgentFileOptions;
}

const NEEDS_TSX = /\.(ts|tsx|mts|cts|jsx)$/;

/**
 * Imports an agent file: its default export is the agent element (or a component, rendered
 * with no props), and it may export `options`. TypeScript and JSX load through tsx's global
 * hooks rather than `tsImport`: a namespaced import would get its own copy of `@agate/core`,
 * and the agent's hooks would then look for a session in a React context the CLI never sets.
 */
export async function loadAgentFile(file: string, cwd = process.cwd()): Promise<LoadedAgent> {
  const module = await importUserModule(file, 'agent file', cwd);
  return {
    element: agentElement(module.default, file),
    options: agentOptions(module.options, file),
  };
}

/** Imports a user's TypeScript or JavaScript module (an agent file, a worker's agents file). */
export async function importUserModule(
  file: string,
  what: string,
  cwd = process.cwd(),
): Promise<Record<string, unknown>> {
  const path = resolve(cwd, file);
  try {
    await access(path);
  } catch {
    throw new CliError(
      `${what[0]?.toUpperCase()}${what.slice(1)} ${file} not found (looked at ${path}).`,
      ExitCode.usage,
    );
  }
  if (NEEDS_TSX.test(path)) {
    await registerAgentTypeScript(path, import.meta.resolve('@agate/core'));
  }
  resolveAgentImportsFromCli(import.meta.url, (specifier) => import.meta.resolve(specifier));
  try {
    // A file loaded as CommonJS (its folder has no `"type": "module"`) arrives as the
    // `exports` object, whose `default` holds the exports.
    return commonJsExports((await import(pathToFileURL(path).href)) as Record<string, unknown>);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(
      `Could not load the ${what} ${file}: ${message.split('\n')[0]}${loadHint(error, path)}`,
      ExitCode.usage,
      { cause: error },
    );
  }
}

function commonJsExports(module: Record<string, unknown>): Record<string, unknown> {
  const inner = module.default;
  if (
    typeof inner === 'object' &&
    inner !== null &&
    !isValidElement(inner) &&
    (inner as { __esModule?: unknown }).__esModule === true
  ) {
    return inner as Record<string, unknown>;
  }
  return module;
}

/** What to do about the common reasons an agent file does not load, in the user's terms. */
function loadHint(error: unknown, path: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const missing = /Cannot find (?:module|package) '([^']+)'/.exec(message)?.[1];
  if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && missing !== undefined) {
    if (missing.startsWith('.') || missing.startsWith('/')) {
      return '. Check the path of that import (relative imports name the file with its extension).';
    }
    const name = missing.startsWith('@')
      ? missing.split('/').slice(0, 2).join('/')
      : missing.split('/')[0];
    return `. Install it in the agent's project: npm install ${name}`;
  }
  if (/top-level await|await is only valid/i.test(message)) {
    return (
      `. The file was loaded as CommonJS, where top-level await is not allowed: add "type": "module" ` +
      `to the package.json above ${path} (npm create agate writes one that has it).`
    );
  }
  return '';
}

function agentElement(value: unknown, file: string): ReactElement {
  if (isValidElement(value)) return value;
  if (typeof value === 'function') {
    return createElement(value as () => ReactElement);
  }
  throw new CliError(
    `The agent file ${file} must export the agent as its default export: an element ` +
      '(`export default <MyAgent />`) or a component (`export default MyAgent`); ' +
      `its default export is ${value === undefined ? 'missing' : typeof value}.`,
    ExitCode.usage,
  );
}

function agentOptions(value: unknown, file: string): AgentFileOptions {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(
      `The agent file ${file} exports \`options\` as ${Array.isArray(value) ? 'an array' : typeof value}; ` +
        'it must be an object of session options ({ maxTicks, store, model, ... }).',
      ExitCode.usage,
    );
  }
  const options = value as Record<string, unknown>;
  for (const owned of ['snapshot', 'signal'] as const) {
    if (owned in options) {
      throw new CliError(
        `The agent file ${file} exports options.${owned}, which \`agate run\` sets itself ` +
          `(${owned === 'snapshot' ? 'use --resume <session>' : 'Ctrl-C aborts the run'}). Remove it.`,
        ExitCode.usage,
      );
    }
  }
  return options as AgentFileOptions;
}
