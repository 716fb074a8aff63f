import { parseArgs } from 'node:util';
import { nextSteps, ScaffoldError, scaffold } from './scaffold.js';
import { TEMPLATE_NAMES } from './templates.js';
import { VERSION } from './version.js';

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `Usage: npm create agate@latest <directory>
       create-agate <directory> [--template <name>] [--name <package-name>] [--from <tarball-folder>]

Writes a new Agate agent project: package.json, tsconfig.json, an agent with its tests,
model.ts (real model routes beside the scripted one), .env.example and a README.

  --template <name>        which project: ${TEMPLATE_NAMES.join(', ')} (default: default):
                           default a calculator with a gate, coding a sandboxed bash
                           agent, chat a useChat page whose refunds wait for approval
  --name <package-name>    package.json's name (default: the directory's name)
  --from <tarball-folder>  install @agate/core, @agate/cli and @agate/testing from the
                           tarballs in this folder (\`pnpm pack:all\` in a clone of Agate
                           writes them to packed/) instead of the npm registry
  -h, --help               this text
  -v, --version            create-agate's version
`;

const OPTIONS = {
  template: { type: 'string', short: 't' },
  name: { type: 'string' },
  from: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** What each option's value is, for "needs a value" messages. */
const VALUE_EXAMPLES: Record<string, string> = {
  template: `a template name: ${TEMPLATE_NAMES.join(', ')}`,
  name: 'a package name, e.g. --name my-agent',
  from: 'a folder of tarballs, e.g. --from ../agate/packed',
};

/** `create-agate <dir> [--name N] [--from DIR]`; returns the exit code (0 done, 2 usage, 1 failure). */
export async function main(argv: readonly string[], io: Output): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`create-agate: ${usageMessage(error)}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (values.version) {
    io.out(`${VERSION}\n`);
    return 0;
  }
  for (const option of ['template', 'name', 'from'] as const) {
    if (values[option]?.trim() === '') {
      io.err(`create-agate: --${option} needs ${VALUE_EXAMPLES[option]}\n`);
      return 2;
    }
  }
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) {
    io.err(
      dir === undefined
        ? `create-agate: give the directory to create the project in, e.g. ${START_EXAMPLE}\n`
        : `create-agate: give one directory, not ${positionals.length} (${positionals.join(', ')}). Run \`create-agate --help\` for the options.\n`,
    );
    return 2;
  }
  try {
    const result = await scaffold(dir, {
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values.from !== undefined ? { from: values.from } : {}),
      ...(values.template !== undefined ? { template: values.template } : {}),
    });
    io.out(nextSteps(result));
    return 0;
  } catch (error) {
    if (error instanceof ScaffoldError) {
      io.err(`create-agate: ${error.message}\n`);
      return 1;
    }
    io.err(
      `create-agate: could not write the project: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}

/**
 * How to start a project, for hints. Until the first release the registry answers 404 for
 * `npm create agate`, so the hint names the tarball route beside it.
 */
export const START_EXAMPLE =
  'npm create agate@latest my-agent (before the first release, in a clone of Agate: pnpm pack:all && pnpm create-agate ../my-agent --from packed)';

/** parseArgs' errors, in this command's words (they say what to type instead). */
function usageMessage(error: unknown): string {
  const { code, message = String(error) } = error as { code?: string; message?: string };
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return `unknown option ${option ?? message}. Run \`create-agate --help\` for the options.`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    const name = option.replace(/^-+/, '');
    const example = VALUE_EXAMPLES[name];
    if (example !== undefined) return `--${name} needs ${example}`;
  }
  return `${message} Run \`create-agate --help\` for the options.`;
}
