import type { ReactNode } from 'react';
import { z } from 'zod';
import { InvalidElementError } from '../../components/render-errors.js';
import type { Session } from '../../runtime/session.js';
import { SUBAGENT_FAMILY, type SubAgentConfig } from './sub-agent-types.js';

/**
 * The tree a call of sub-agent `name` with `input` runs, as rendered in `session` (render it
 * first): what `renderContext(…, { subAgent })` compiles for snapshot tests. Throws when no such
 * `<SubAgent>` is rendered or the input does not match its schema.
 */
export function subAgentElement(session: Session, name: string, input: unknown): ReactNode {
  const declared = session.declarations
    .ofFamily(SUBAGENT_FAMILY)
    .map((d) => d.config as SubAgentConfig);
  const config = declared.find((c) => c.name === name);
  if (config === undefined) {
    const names = declared.map((c) => `"${c.name}"`);
    throw new InvalidElementError(
      `No <SubAgent name="${name}"> is rendered in this tree` +
        (names.length > 0 ? `; rendered: ${names.join(', ')}.` : '.'),
    );
  }
  const parsed = config.input.safeParse(input);
  if (!parsed.success) {
    throw new InvalidElementError(
      `The input for sub-agent "${name}" does not match its schema:\n${z.prettifyError(parsed.error)}`,
    );
  }
  return config.agent(parsed.data);
}
