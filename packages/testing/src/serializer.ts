import { isCompiledContext } from '@agate/core/guards';
import { formatContext } from './format-context.js';

/**
 * A vitest (pretty-format) snapshot serializer: compiled contexts are stored as the readable
 * text of `formatContext`, not as JSON. `expect.addSnapshotSerializer(agateSerializer)`.
 */
export const agateSerializer = {
  test(value: unknown): boolean {
    return isCompiledContext(value);
  },
  serialize(value: unknown): string {
    return isCompiledContext(value) ? formatContext(value) : String(value);
  },
};
