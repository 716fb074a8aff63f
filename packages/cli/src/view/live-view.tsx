import { Box, Static, Text } from 'ink';
import { useEffect, useState } from 'react';
import { outputLines } from '../format/output.js';
import type { ContinueView, RunViewState, TickNote, TickView, ToolLine } from './view-state.js';

/** The live view of a run: finished ticks printed once, the tick in progress, the status panel. */
export function RunView(props: { view: RunViewState }) {
  const { view } = props;
  return (
    <>
      <Static items={view.done}>
        {(tick) => <TickBlock key={tick.tick} tick={tick} subAgents={view.children} />}
      </Static>
      {view.current !== undefined && <TickBlock tick={view.current} subAgents={view.children} />}
      <StatusPanel view={view} />
    </>
  );
}

export function TickBlock(props: { tick: TickView; subAgents?: RunViewState['children'] }) {
  const { tick, subAgents } = props;
  return (
    <Box flexDirection="column">
      <Text dimColor>── tick {tick.tick} ──</Text>
      {tick.text.trim() !== '' && (
        <Text>
          <Text color="cyan">model: </Text>
          {tick.text.trim()}
        </Text>
      )}
      {tick.entries.map((entry) =>
        entry.type === 'tool' ? (
          <Box key={entry.id} flexDirection="column">
            <ToolCallLine line={entry} />
            {subAgents?.[`${entry.name}#${entry.id}`] !== undefined && (
              <SubAgentBlock
                segment={`${entry.name}#${entry.id}`}
                view={subAgents[`${entry.name}#${entry.id}`] as RunViewState}
              />
            )}
          </Box>
        ) : (
          <Text key={entry.id} color={NOTE_COLOR[entry.kind] ?? 'magenta'}>
            {entry.text}
          </Text>
        ),
      )}
    </Box>
  );
}

/** A sub-agent's run under the call that started it: indented, with its own gates. */
export function SubAgentBlock(props: { segment: string; view: RunViewState }) {
  const { segment, view } = props;
  const ticks = view.current !== undefined ? [...view.done, view.current] : view.done;
  return (
    <Box flexDirection="column" marginLeft={4}>
      <Text color="blue">
        ▸ sub-agent {segment}: {gatesLine(view)}
        {view.end !== undefined
          ? ` · ${view.end.status}${view.end.reason ? ` — ${view.end.reason}` : ''}`
          : ''}
      </Text>
      {ticks.map((tick) => (
        <TickBlock key={tick.tick} tick={tick} subAgents={view.children} />
      ))}
    </Box>
  );
}

/** `gates: verification active (1 refused)`, or `gates: (none)`. */
export function gatesLine(view: RunViewState): string {
  const gates = Object.entries(view.gates);
  return `gates: ${
    gates.length === 0
      ? '(none)'
      : gates
          .map(([name, g]) => `${name} ${g.state}${g.blocks > 0 ? ` (${g.blocks} refused)` : ''}`)
          .join(', ')
  }`;
}

const NOTE_COLOR: Partial<Record<TickNote['kind'], string>> = {
  'exit-refused': 'yellow',
  warning: 'red',
};

const TOOL_MARK = { running: '…', ok: '←', error: '✗', refused: '⊘', held: '⏸' } as const;
const TOOL_COLOR = {
  running: 'gray',
  ok: 'green',
  error: 'red',
  refused: 'yellow',
  held: 'magenta',
} as const;

/** How long the tool has been running, counted from when its line appeared (updated each second). */
function RunningFor() {
  const [since] = useState(() => Date.now());
  const [now, setNow] = useState(since);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.floor((now - since) / 1_000);
  return (
    <Text color="gray">
      {'  '}… running{seconds > 0 ? ` for ${seconds}s` : ''}
    </Text>
  );
}

function ToolCallLine(props: { line: ToolLine }) {
  const { line } = props;
  return (
    <Box flexDirection="column">
      <Text>
        → <Text bold>{line.name}</Text> {line.input}
      </Text>
      {line.status === 'running' && <RunningFor />}
      {line.status !== 'running' && (
        <Text color={TOOL_COLOR[line.status]}>
          {'  '}
          {TOOL_MARK[line.status]}{' '}
          {line.status === 'refused' ? `refused by ${line.refusedBy}: ` : ''}
          {line.output}
        </Text>
      )}
    </Box>
  );
}

export function StatusPanel(props: { view: RunViewState }) {
  const { view } = props;
  const knobs = Object.entries(view.knobs);
  const checkpoints = Object.entries(view.checkpoints);
  const { usage, end } = view;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text>
        <Text bold>tick {view.tick}</Text> · tokens {usage.inputTokens} in + {usage.outputTokens}{' '}
        out
      </Text>
      <Text>{gatesLine(view)}</Text>
      {knobs.length > 0 && (
        <Text>
          knobs: {knobs.map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(', ')}
        </Text>
      )}
      {checkpoints.length > 0 && (
        <Text>
          checkpoints:{' '}
          {checkpoints
            .map(([id, c]) => `${id} ${c.state === 'unlocked' ? 'open' : c.state}`)
            .join(', ')}
        </Text>
      )}
      {view.continueGate !== undefined && <Text>{continueLine(view.continueGate)}</Text>}
      {end !== undefined && (
        <Text color={end.status === 'completed' ? 'green' : 'yellow'}>
          {end.status}
          {end.reason ? ` — ${end.reason}` : ''} · {end.ticks} tick{end.ticks === 1 ? '' : 's'} ·{' '}
          {usage.totalTokens} tokens
        </Text>
      )}
      {end?.output !== undefined && <Text>{outputLines(end.output).join('\n')}</Text>}
    </Box>
  );
}

/** The ContinueGate's last decision and how much of its budgets the run has used. */
export function continueLine(c: ContinueView): string {
  const left = Object.entries(c.budgetRemaining)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${v} ${k === 'timeMs' ? 'ms' : k === 'toolCalls' ? 'tool calls' : k}`);
  return [
    `ContinueGate: ${c.decision} at step ${c.step}`,
    `used ${c.tokensUsed} tokens, ${c.toolCalls} tool calls`,
    ...(left.length > 0 ? [`left ${left.join(', ')}`] : []),
    `checkpoint in ${c.stepsUntilCheckpoint} steps`,
    ...(c.reasons.length > 0 ? [c.reasons.join('; ')] : []),
  ].join(' · ');
}
