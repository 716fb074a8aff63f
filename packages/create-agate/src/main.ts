import { nextSteps, ScaffoldError, scaffold } from './scaffold.js';
import { VERSION } from './version.js';

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `Usage: npm create agate@latest <directory>
       create-agate <directory> [--name <package-name>]

Writes a new Agate agent project: package.json, tsconfig.json, agent.tsx (an agent with a
gate), agent.test.tsx (a scripted-model test), script.json and a README.
`;

/** `create-agate <dir> [--name N]`; returns the exit code (0 done, 2 usage, 1 failure). */
export async function main(argv: readonly string[], io: Output): Promise<number> {
  const args = [...argv];
  if (args.includes('--help') || args.includes('-h')) {
    io.out(USAGE);
    return 0;
  }
  if (args.includes('--version') || args.includes('-v')) {
    io.out(`${VERSION}\n`);
    return 0;
  }
  let name: string | undefined;
  const nameAt = args.indexOf('--name');
  if (nameAt !== -1) {
    name = args[nameAt + 1];
    if (name === undefined || name.startsWith('-')) {
      io.err('create-agate: --name needs a package name, e.g. --name my-agent\n');
      return 2;
    }
    args.splice(nameAt, 2);
  }
  const unknown = args.find((a) => a.startsWith('-'));
  if (unknown !== undefined) {
    io.err(
      `create-agate: unknown option ${unknown}. Run \`create-agate --help\` for the options.\n`,
    );
    return 2;
  }
  if (args.length !== 1 || args[0] === undefined) {
    io.err(
      `create-agate: give the directory to create the project in, e.g. npm create agate@latest my-agent\n`,
    );
    return 2;
  }
  try {
    const result = await scaffold(args[0], name !== undefined ? { name } : {});
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
