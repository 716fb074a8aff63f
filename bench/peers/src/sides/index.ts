import type { Side, SideId } from '../side.js';
import { agate } from './agate.js';
import { langchain } from './langchain.js';
import { langgraph } from './langgraph.js';
import { mastra } from './mastra.js';
import { openaiAgents } from './openai-agents.js';
import { plain } from './plain.js';

export const SIDES: Record<SideId, Side> = {
  agate,
  plain,
  langgraph,
  langchain,
  openaiAgents,
  mastra,
};
