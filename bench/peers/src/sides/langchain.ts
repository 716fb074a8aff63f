import { createAgent } from 'langchain';
import { SYSTEM } from '../script.js';
import { LANGCHAIN_TOOLS, langGraphSide } from './langchain-model.js';

/** LangChain 1.x: `createAgent` (on LangGraph). */
export const langchain = langGraphSide(
  {
    id: 'langchain',
    name: 'LangChain',
    label: 'LangChain `createAgent`',
    packages: ['langchain', '@langchain/langgraph', '@langchain/core'],
  },
  (model) => createAgent({ model, tools: LANGCHAIN_TOOLS, systemPrompt: SYSTEM }),
);
