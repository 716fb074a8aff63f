import { createRequire } from 'node:module';
import { McpServer, System, Timeline, User } from '@agate/core';

/** The reference filesystem server's entry point, run with the current Node. */
export const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);

export const TASK =
  'Tidy the downloads folder: put images in images/, documents in docs/, and leave nothing loose.';

/**
 * A file-tidying agent whose tools all come from the MCP filesystem server, confined to
 * `root` by the server itself. Moving a file needs a person's approval (`needsApproval`);
 * looking and making folders does not.
 */
export function TidyAgent(props: { root: string }) {
  return (
    <>
      <System>
        You tidy a folder with the filesystem tools. Use absolute paths inside {props.root}. List
        the folder first, make the folders you need, then move each file. Say what you did when you
        are done.
      </System>
      <User>{TASK}</User>
      <McpServer
        name="fs"
        command={process.execPath}
        args={[FILESYSTEM_SERVER, props.root]}
        include={['list_directory', 'create_directory', 'move_file', 'get_file_info']}
        toolOptions={{
          move_file: { needsApproval: true, category: 'patch' },
          list_directory: { category: 'discovery' },
        }}
      />
      <Timeline />
    </>
  );
}
