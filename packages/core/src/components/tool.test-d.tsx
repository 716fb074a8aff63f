/**
 * `<Tool>`'s promise: `execute` gets the input its zod schema parses to, and the props guards
 * read (`evidence`, `needsApproval`, `category`, `writes`) get that input and what `execute`
 * returns, with nothing written by hand. Imported as a user does, from the package.
 */

import type { ToolCategory } from '@agate/core';
import { type NeedsApprovalContext, Tool, type ToolExecuteContext } from '@agate/core';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

const Read = z.object({ path: z.string(), lines: z.number().int().optional() });
const Run = z.object({ command: z.string() });
const checks = async ({ command }: { command: string }) => ({ exitCode: 0, stdout: command });

describe('<Tool> input', () => {
  it('is what the schema parses to, with the execute context beside it', () => {
    <Tool
      name="read"
      input={Read}
      execute={(input, context) => {
        expectTypeOf(input).toEqualTypeOf<{ path: string; lines?: number | undefined }>();
        expectTypeOf(context).toEqualTypeOf<ToolExecuteContext>();
        expectTypeOf(context.abortSignal).toEqualTypeOf<AbortSignal>();
        return input.path;
      }}
    />;
  });

  it('is the output of a transforming schema, not its input', () => {
    const Trimmed = z.object({ name: z.string().transform((s) => s.length) });
    <Tool
      name="count"
      input={Trimmed}
      execute={(input) => {
        expectTypeOf(input).toEqualTypeOf<{ name: number }>();
        return input.name;
      }}
    />;
  });

  it('refuses an execute that reads it as something else', () => {
    // @ts-expect-error: the schema makes `path` a string
    <Tool name="read" input={Read} execute={(input: { path: number }) => input.path} />;
    // @ts-expect-error: the schema has no `missing`
    <Tool name="read" input={Read} execute={(input) => input.missing} />;
    // @ts-expect-error: `input` takes a zod schema, not a JSON schema
    <Tool name="read" input={{ type: 'object' }} execute={() => 'text'} />;
    // @ts-expect-error: a tool needs an `input` schema (or a ready AI SDK `tool`)
    <Tool name="read" execute={() => 'text'} />;
  });
});

describe('the guard props of <Tool>', () => {
  it('get the parsed input and what execute resolves to', () => {
    <Tool
      name="test"
      input={Run}
      execute={checks}
      evidence={{
        kind: 'command',
        command: (input) => {
          expectTypeOf(input).toEqualTypeOf<{ command: string }>();
          return input.command;
        },
        ok: (output) => {
          expectTypeOf(output).toEqualTypeOf<{ exitCode: number; stdout: string }>();
          return output.exitCode === 0;
        },
      }}
      needsApproval={(input, context) => {
        expectTypeOf(input).toEqualTypeOf<{ command: string }>();
        expectTypeOf(context).toEqualTypeOf<NeedsApprovalContext>();
        return input.command.startsWith('rm ');
      }}
      category={(input): ToolCategory => (input.command.startsWith('npm') ? 'verify' : 'patch')}
      writes={(input) => [input.command]}
    />;
  });

  it('refuse what does not fit that input and output', () => {
    const ok = (output: { exitCode: number }) => output.exitCode === 0;
    const ran = { kind: 'command', command: (input: { command: string }) => input.command, ok };
    // @ts-expect-error: execute returns a string, which has no exitCode
    <Tool name="t" input={Run} execute={() => 'ok'} evidence={{ ...ran, kind: 'command' }} />;
    // @ts-expect-error: the input has no `path`
    <Tool name="t" input={Run} execute={checks} writes={(input) => [input.path]} />;
    // @ts-expect-error: needsApproval answers a boolean
    <Tool name="t" input={Run} execute={checks} needsApproval={() => 'yes'} />;
    // @ts-expect-error: not one of the tool categories
    <Tool name="t" input={Run} execute={checks} category="deploy" />;
  });
});
