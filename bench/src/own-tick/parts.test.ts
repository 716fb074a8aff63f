import { describe, expect, it } from 'vitest';
import {
  bundleModules,
  type CpuProfile,
  type Frame,
  packageOfUrl,
  partOfStack,
  partsOfProfile,
} from './parts.js';

const agate = (module: string, functionName = 'f'): Frame => ({
  functionName,
  package: '@agate/core',
  module,
});
const dep = (pkg: string, functionName = 'g'): Frame => ({
  functionName,
  package: pkg,
  module: undefined,
});
const root: Frame = { functionName: '(root)', package: undefined, module: undefined };

describe('partOfStack', () => {
  it('gives a sample to the innermost frame that belongs to a part', () => {
    const render = [
      root,
      agate('src/runtime/tick/run-tick.ts'),
      agate('src/runtime/tick/render-context.ts'),
    ];
    expect(partOfStack(render)).toBe('render and compile');
    // React's work under the render, and a guard's event under the render.
    expect(partOfStack([...render, dep('react-reconciler')])).toBe('render and compile');
    expect(partOfStack([...render, agate('src/guard-seam/guard-set.ts')])).toBe('guards');
    expect(
      partOfStack([
        ...render,
        agate('src/guard-seam/guard-set.ts'),
        agate('src/runtime/events.ts'),
      ]),
    ).toBe('events');
    expect(partOfStack([...render, agate('src/runtime/session-core.ts', 'emit')])).toBe('events');
  });

  it("counts the AI SDK's code as the SDK's wherever it runs, and what it calls back", () => {
    const call = [root, agate('src/runtime/model-call.ts'), dep('ai', 'generateText')];
    expect(partOfStack(call)).toBe('AI SDK call');
    // After an await the SDK's code resumes with nothing of its caller on the stack.
    expect(partOfStack([root, dep('ai', 'executeGenerateText')])).toBe('AI SDK call');
    expect(partOfStack([root, dep('@ai-sdk/provider-utils'), dep('zod')])).toBe('AI SDK call');
    // The scripted model (no package) under the SDK.
    expect(
      partOfStack([...call, { functionName: 'doGenerate', package: undefined, module: undefined }]),
    ).toBe('AI SDK call');
    // Agate's code the SDK calls back into (the model wrapper) is Agate's; the model it wraps
    // (the app's code) is the call's, as when the call is made alone.
    const wrapper = [...call, agate('src/runtime/unique-call-ids.ts', 'doGenerate')];
    expect(partOfStack(wrapper)).toBe('model request');
    const model: Frame = {
      functionName: 'replyAt',
      package: undefined,
      module: undefined,
      isScript: true,
    };
    expect(partOfStack([...wrapper, model])).toBe('AI SDK call');
    // A tool's execute (the app's code too) under Agate's tool calls stays the tool call's.
    expect(partOfStack([root, agate('src/runtime/tool-execution.ts'), model])).toBe('tool calls');
  });

  it('gives everything under set-up or disposal to them, SDK and React included', () => {
    const setUp = [root, agate('src/runtime/session.ts', 'createSession')];
    expect(partOfStack([...setUp, agate('src/guard-seam/built-in-families.ts')])).toBe(
      'session set-up and disposal',
    );
    expect(
      partOfStack([root, agate('src/runtime/session.ts', 'dispose'), dep('react-reconciler')]),
    ).toBe('session set-up and disposal');
    // Another module's dispose is not the session's.
    expect(partOfStack([root, agate('src/runtime/resources.ts', 'dispose')])).toBe('other');
  });

  it('tells garbage collection, immer, tool calls and what belongs to no part', () => {
    expect(partOfStack([root, { ...root, functionName: '(garbage collector)' }])).toBe(
      'garbage collection',
    );
    expect(partOfStack([root, agate('src/runtime/tick/end-tick.ts'), dep('immer')])).toBe(
      'commit and freezing',
    );
    expect(partOfStack([root, agate('src/runtime/tick/run-tool-calls.ts'), dep('zod')])).toBe(
      'tool calls',
    );
    expect(partOfStack([root, agate('src/runtime/tick/run-tick.ts')])).toBe('other');
    expect(partOfStack([root, { ...root, functionName: '(program)' }])).toBe('other');
  });
});

describe('bundleModules', () => {
  it('maps each line to the module whose `// src/` comment starts at or before it', () => {
    const source = [
      'import { x } from "y";', // 0: before any module
      '// src/runtime/events.ts', // 1
      'class EventLog {}', // 2
      '// src/renderer/compile.ts', // 3
      'function compile() {}', // 4
      '  // src/not-a-marker.ts', // 5: indented, code's own comment
      '}', // 6
    ].join('\n');
    const moduleAt = bundleModules(source);
    expect(moduleAt(0)).toBeUndefined();
    expect(moduleAt(1)).toBe('src/runtime/events.ts');
    expect(moduleAt(2)).toBe('src/runtime/events.ts');
    expect(moduleAt(4)).toBe('src/renderer/compile.ts');
    expect(moduleAt(6)).toBe('src/renderer/compile.ts');
    expect(bundleModules('no markers')(0)).toBeUndefined();
  });
});

describe('packageOfUrl', () => {
  it("names pnpm's, npm's and Agate's own files", () => {
    expect(
      packageOfUrl('file:///r/node_modules/.pnpm/ai@7.0.1_zod@4/node_modules/ai/dist/index.js'),
    ).toBe('ai');
    expect(
      packageOfUrl(
        'file:///r/node_modules/.pnpm/@ai-sdk+provider-utils@5/node_modules/@ai-sdk/provider-utils/dist/index.js',
      ),
    ).toBe('@ai-sdk/provider-utils');
    expect(packageOfUrl('file:///app/node_modules/react/cjs/react.production.js')).toBe('react');
    expect(packageOfUrl('file:///r/packages/core/dist/chunks/chunk-X.js')).toBe('@agate/core');
    expect(packageOfUrl('file:///app/node_modules/@agate/core/dist/index.js')).toBe('@agate/core');
    expect(packageOfUrl('file:///r/bench/src/workload.tsx')).toBeUndefined();
    expect(packageOfUrl('node:internal/timers')).toBeUndefined();
  });
});

describe('partsOfProfile', () => {
  const url = 'file:///r/packages/core/dist/index.js';
  const node = (
    id: number,
    functionName: string,
    nodeUrl: string,
    line: number,
    children?: number[],
  ) => ({
    id,
    callFrame: { functionName, url: nodeUrl, lineNumber: line },
    ...(children ? { children } : {}),
  });
  const profile: CpuProfile = {
    nodes: [
      node(1, '(root)', '', 0, [2, 5, 6, 7, 8]),
      node(2, 'runTick', url, 10, [3, 4]),
      node(3, 'renderContext', url, 20),
      node(4, 'emit', url, 30),
      node(5, 'executeGenerateText', 'file:///r/node_modules/ai/dist/index.js', 0),
      node(6, '(idle)', '', 0),
      node(7, 'post', 'node:inspector', 0),
      node(8, '(garbage collector)', '', 0),
    ],
    samples: [3, 3, 4, 5, 6, 7, 8, 2],
    timeDeltas: [100, 100, 200, 400, 1000, 1000, 300, 50],
  };
  const modules = (line: number) =>
    line >= 30
      ? 'src/runtime/events.ts'
      : line >= 20
        ? 'src/runtime/tick/render-context.ts'
        : 'src/runtime/tick/run-tick.ts';

  it('sums each sample into its part, in milliseconds, leaving out idle time and the profiler', () => {
    const parts = partsOfProfile(profile, (u) => (u === url ? modules : undefined));
    expect(parts['render and compile']).toBeCloseTo(0.2);
    expect(parts.events).toBeCloseTo(0.2);
    expect(parts['AI SDK call']).toBeCloseTo(0.4);
    expect(parts['garbage collection']).toBeCloseTo(0.3);
    expect(parts.other).toBeCloseTo(0.05);
    const total = Object.values(parts).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1.15);
  });

  it('leaves a bundle line it cannot place to its callers', () => {
    const parts = partsOfProfile(profile, () => undefined);
    expect(parts['render and compile']).toBe(0);
    expect(parts.other).toBeCloseTo(0.45);
  });
});
