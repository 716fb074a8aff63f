/**
 * Agent files laid out the ways people keep them (issue 39 item 3), for the tests that run each
 * through every entry point of the CLI: `pnpm agate`, `bin/agate.js` in the repository, and
 * the installed bin. Each agent uses a hook of `@agate/core` (it finds its session only when
 * the agent and the CLI share one copy of the core) and JSX or `createElement` (JSX compiles
 * through React's automatic runtime only when the CLI's tsconfig reaches the file).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The model's turns for every layout: the gate refuses the first answer, takes the second. */
export const LAYOUT_SCRIPT = ['First answer.', 'Second answer.'];

/** What a run of any layout prints when it worked (plain lines). */
export const LAYOUT_EXPECTED = [
  /gate twice: inactive → active \(by runtime\)/,
  /exit refused:\n\s+Gate "twice" is active/,
  /model: Second answer\./,
  /status: completed/,
];

const GATE = `const twice = gate({
  description: 'Answer twice',
  instructions: 'ANSWER AGAIN.',
  activateWhen: (tick) => tick.tick === 1,
  clearWhen: (tick) => tick.tick === 2,
});`;

const TSX_AGENT = `import { gate, System, Timeline, User, useGate } from '@agate/core';

${GATE}

export default function Twice() {
  const g = useGate('twice', twice);
  return (
    <>
      <System>Answer twice.</System>
      <User>Hi</User>
      <Timeline />
      {g.element}
    </>
  );
}
`;

const TS_AGENT = `import { gate, System, Timeline, User, useGate } from '@agate/core';
import { createElement, Fragment } from 'react';

${GATE}

export default function Twice() {
  const g = useGate('twice', twice);
  return createElement(
    Fragment,
    null,
    createElement(System, null, 'Answer twice.'),
    createElement(User, null, 'Hi'),
    createElement(Timeline),
    g.element,
  );
}
`;

export interface AgentLayout {
  /** What the layout is, as test names say it. */
  name: string;
  /** The agent file's absolute path. */
  file: string;
}

/** Writes every layout below `root` (an empty folder outside any package); returns them. */
export function writeAgentLayouts(root: string): AgentLayout[] {
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const layouts: AgentLayout[] = [
    { name: 'a .tsx in a folder with no package.json or tsconfig.json', file: 'bare/agent.tsx' },
    { name: 'a .ts agent (no JSX) in a folder of its own', file: 'plain-ts/agent.ts' },
    { name: 'a .tsx in an ES module package', file: 'esm/agent.tsx' },
    { name: 'a .tsx in a CommonJS package', file: 'commonjs/agent.tsx' },
    {
      name: 'a .tsx its tsconfig.json leaves out (classic JSX, another include)',
      file: 'classic/agent.tsx',
    },
    {
      name: 'a .tsx a package ships inside node_modules',
      file: 'project/node_modules/shipped-agents/agent.tsx',
    },
    { name: 'a .tsx in a dot-folder', file: 'project/.agents/agent.tsx' },
  ].map((layout) => ({ ...layout, file: join(root, layout.file) }));
  // Its tsconfig.json's other settings still apply: a `paths` alias finds the gate.
  const aliased = join(root, 'paths/agent.tsx');
  layouts.push({ name: "a .tsx importing through its tsconfig.json's paths", file: aliased });
  write(
    aliased,
    TSX_AGENT.replace('import { gate, System,', 'import { System,').replace(
      GATE,
      "import { twice } from '@lib/twice';",
    ),
  );
  write(
    join(root, 'paths/lib/twice.ts'),
    `import { gate } from '@agate/core';\n\nexport ${GATE}\n`,
  );
  write(join(root, 'paths/package.json'), json({ name: 'aliased-agents', type: 'module' }));
  write(
    join(root, 'paths/tsconfig.json'),
    json({ compilerOptions: { jsx: 'react', paths: { '@lib/*': ['./lib/*'] } } }),
  );
  for (const { file } of layouts) if (file !== aliased) writeLayoutAgent(file);
  write(join(root, 'esm/package.json'), json({ name: 'esm-agents', type: 'module' }));
  write(join(root, 'commonjs/package.json'), json({ name: 'commonjs-agents' }));
  write(join(root, 'classic/package.json'), json({ name: 'classic-agents', type: 'module' }));
  write(
    join(root, 'classic/tsconfig.json'),
    json({ compilerOptions: { jsx: 'react' }, include: ['nothing/**'] }),
  );
  write(
    join(root, 'project/node_modules/shipped-agents/package.json'),
    json({ name: 'shipped-agents', version: '1.0.0', type: 'module' }),
  );
  write(join(root, 'script.json'), json(LAYOUT_SCRIPT));
  return layouts;
}

/** Writes the layouts' agent at `file`: TypeScript without JSX for a `.ts` file, else TSX. */
export function writeLayoutAgent(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, file.endsWith('.ts') ? TS_AGENT : TSX_AGENT);
}

/** The script file `writeAgentLayouts` wrote below `root`. */
export const layoutScript = (root: string): string => join(root, 'script.json');
