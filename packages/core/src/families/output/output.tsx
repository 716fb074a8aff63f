import type { ReactNode } from 'react';
import type { ZodType } from 'zod';
import { InvalidElementError } from '../../components/render-errors.js';
import { DEFAULT_MAX_BLOCKS } from '../../guard-seam/exit-refusal-text.js';
import { useDeclaration } from '../../runtime/use-declaration.js';
import { OUTPUT_FAMILY, type OutputConfig } from './output-guard.js';

/** Props of `<Output>`: the schema the run's answer must match. */
export interface OutputProps<S extends ZodType = ZodType> {
  /** The shape of the run's answer: `final_answer`'s input, and `RunResult.output`. */
  schema: S;
  /** `final_answer`'s description (default: a sentence saying it ends the run). */
  description?: string;
  /** Invalid answers and plain-text finishes refused before the run ends `blocked`. Default 5. */
  maxBlocks?: number;
}

/**
 * Makes the run end in a checked object: the model gets a `final_answer` tool whose input is
 * `schema`, and `result.output` is the value it gave (typed with `run<z.infer<typeof S>>`).
 * Anywhere in the tree; renders nothing itself.
 */
export function Output<S extends ZodType>(props: OutputProps<S>): ReactNode {
  const maxBlocks = props.maxBlocks ?? DEFAULT_MAX_BLOCKS;
  if (!Number.isInteger(maxBlocks) || maxBlocks < 0) {
    throw new InvalidElementError(
      `<Output maxBlocks=${JSON.stringify(props.maxBlocks)}> needs a whole number >= 0.`,
    );
  }
  if (typeof props.schema !== 'object' || props.schema === null || !('safeParse' in props.schema)) {
    throw new InvalidElementError(
      '<Output schema> needs a zod schema, for example z.object({ answer: z.string() }).',
    );
  }
  const config: OutputConfig = {
    schema: props.schema,
    maxBlocks,
    ...(props.description !== undefined ? { description: props.description } : {}),
  };
  useDeclaration('<Output>', {
    kind: 'guard',
    family: OUTPUT_FAMILY,
    name: `${OUTPUT_FAMILY}:final_answer`,
    config,
  });
  return null;
}
