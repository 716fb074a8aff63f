/**
 * `<Output>`'s object as the CLI prints it at the end of a run: `output:` and the object as
 * pretty JSON, indented under it; nothing when the run produced none.
 */
export function outputLines(output: unknown): string[] {
  if (output === undefined) return [];
  const json = JSON.stringify(output, null, 2) ?? String(output);
  return ['output:', ...json.split('\n').map((line) => `  ${line}`)];
}
