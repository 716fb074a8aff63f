import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { SYSTEM } from '../script.js';
import { LANGCHAIN_TOOLS, langGraphSide } from './langchain-model.js';

/** LangGraph.js: the prebuilt `createReactAgent` (deprecated in favour of `createAgent`). */
export const langgraph = langGraphSide(
  {
    id: 'langgraph',
    name: 'LangGraph.js',
    label: 'LangGraph.js `createReactAgent`',
    packages: ['@langchain/langgraph', '@langchain/core'],
  },
  (llm) => createReactAgent({ llm, tools: LANGCHAIN_TOOLS, prompt: SYSTEM }),
);
