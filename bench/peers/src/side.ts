/** What every side of the peers bench provides: one run, and a conversation kept idle. */

export const SIDE_IDS = [
  'agate',
  'plain',
  'langgraph',
  'langchain',
  'openaiAgents',
  'mastra',
] as const;
export type SideId = (typeof SIDE_IDS)[number];

export interface RunOptions {
  /** The fake model answers after this many milliseconds (a timer), default 0. */
  latencyMs?: number;
}

export interface SideRun {
  /** Model calls the run made (counted by the side's fake model). */
  modelCalls: number;
  /** The run's final text. */
  text: string;
}

export interface Side {
  id: SideId;
  /** How the report names it, with the API used. */
  label: string;
  /** Its short name (in lists). */
  name: string;
  /** The npm packages whose versions the report shows. */
  packages: readonly string[];
  /**
   * A run of `steps` tool calls (and `steps + 1` model calls) from scratch, as the side's docs
   * show a request handled: the agent made for the run, the tools made once at module level.
   */
  run(steps: number, options?: RunOptions): Promise<SideRun>;
  /**
   * The same run, then what a server keeps between the conversation's runs (the side's own
   * session object, or the conversation it hands back to continue from).
   */
  idle(steps: number): Promise<{ run: SideRun; held: unknown }>;
}
