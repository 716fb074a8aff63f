import { Tool } from '@agate/core';
import { z } from 'zod';
import type { Workspace } from './workspace.js';

/** What the model reads about the file tools: each tool's description and its arguments'. */
export interface FileToolText {
  listFiles: string;
  listPath: string;
  readFile: string;
  writeFile: string;
  filePath: string;
}

/** Wording for a generic workspace (the file agent's). */
export const WORKSPACE_TOOL_TEXT: FileToolText = {
  listFiles: 'List the files under a directory of the workspace (recursively), with sizes.',
  listPath: 'Directory relative to the workspace root, "." for all.',
  readFile: 'Read a UTF-8 text file of the workspace.',
  writeFile: 'Create or overwrite a UTF-8 text file in the workspace.',
  filePath: 'File path relative to the workspace root.',
};

export interface FileToolsProps {
  root: string;
  workspace: Workspace;
  text?: FileToolText;
  /** When set, list_files may be called without a path and lists this directory. */
  listPathDefault?: string;
}

/**
 * list_files, read_file and write_file, confined to `root` by `workspace`. Reads and writes are
 * evidence receipts (`read`, `edit`) for `complete_step` under `<Todos>`.
 */
export function FileTools(props: FileToolsProps) {
  const { root, workspace } = props;
  const text = props.text ?? WORKSPACE_TOOL_TEXT;
  const listPath =
    props.listPathDefault === undefined ? z.string() : z.string().default(props.listPathDefault);
  return (
    <>
      <Tool
        name="list_files"
        description={text.listFiles}
        input={z.object({ path: listPath.describe(text.listPath) })}
        execute={({ path }) => workspace.listFiles(root, path)}
      />
      <Tool
        name="read_file"
        description={text.readFile}
        input={z.object({ path: z.string().describe(text.filePath) })}
        execute={({ path }) => workspace.readFile(root, path)}
        evidence={{ kind: 'read', paths: ({ path }) => [path] }}
      />
      <Tool
        name="write_file"
        description={text.writeFile}
        input={z.object({
          path: z.string().describe(text.filePath),
          content: z.string().describe('The whole new content of the file.'),
        })}
        execute={({ path, content }) => workspace.writeFile(root, path, content)}
        evidence={{ kind: 'edit', paths: ({ path }) => [path] }}
      />
    </>
  );
}
