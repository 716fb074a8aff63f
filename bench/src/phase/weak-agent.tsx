import { PhaseGates, System, Timeline, Tool, User } from '@agate/core';
import { z } from 'zod';

/** The repository the weak agent works on: add() is wrong, the test says so. */
export const START_FILES: Readonly<Record<string, string>> = {
  'README.md': '# calc\nA tiny calculator.\n',
  'package.json': '{ "name": "calc" }\n',
  'src/math.js': 'export function add(a, b) {\n  return a - b;\n}\n',
  'test/math.test.js': "import { add } from '../src/math.js';\nassert(add(2, 3) === 5);\n",
};

export const TASK = 'Fix add() in src/math.js: add(2, 3) must be 5.';

export type PhaseMode = 'none' | 'warn' | 'block';

/**
 * A coding agent with the seed's kind of tools (two discovery tools, search, read, write, run
 * tests) over an in-memory repository, with or without phase gates.
 */
export function WeakAgent(props: { mode: PhaseMode; files: Map<string, string> }) {
  const { files } = props;
  return (
    <>
      <System>You are a coding assistant. Use the tools to solve the task.</System>
      <User>{TASK}</User>
      <Timeline />
      <Tool
        name="list_files"
        description="List the repository's files."
        input={z.object({})}
        category="discovery"
        execute={() => [...files.keys()].sort()}
      />
      <Tool
        name="repo_info"
        description="Name and size of the repository."
        input={z.object({})}
        category="discovery"
        execute={() => ({ name: 'calc', files: files.size })}
      />
      <Tool
        name="search_code"
        description="Search the code for a pattern."
        input={z.object({ pattern: z.string() })}
        category="search"
        execute={({ pattern }) =>
          [...files].filter(([, text]) => text.includes(pattern)).map(([path]) => path)
        }
      />
      <Tool
        name="read_file"
        description="Read a file."
        input={z.object({ path: z.string() })}
        category="read"
        execute={({ path }) => files.get(path) ?? `No such file: ${path}`}
      />
      <Tool
        name="write_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        category="patch"
        execute={({ path, content }) => {
          files.set(path, content);
          return 'written';
        }}
      />
      <Tool
        name="run_tests"
        description="Run the test suite."
        input={z.object({})}
        category="verify"
        execute={() => {
          const ok = files.get('src/math.js')?.includes('a + b') === true;
          return { exitCode: ok ? 0 : 1, output: ok ? '1 passed' : '1 failed: add(2, 3) is -1' };
        }}
      />
      {props.mode === 'none' ? null : <PhaseGates mode={props.mode} />}
    </>
  );
}
