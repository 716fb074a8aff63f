/**
 * What a tool's calls are evidence of (`<Tool evidence>`). A call counts as evidence only
 * when it succeeded: `execute` returned without throwing and `ok(output)`, when given, is true.
 * `I` is the tool's validated input, `O` what its `execute` resolves to.
 */
export type EvidenceSpec<I = never, O = never> =
  | {
      kind: 'command';
      /** The command the call ran, as the model will quote it in `complete_step`. */
      command: (input: I) => string;
      ok?: (output: O) => boolean;
    }
  | {
      kind: 'read' | 'edit';
      /** The paths the call read or edited. */
      paths: (input: I) => readonly string[];
      ok?: (output: O) => boolean;
    };
