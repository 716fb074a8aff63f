/**
 * An agent whose tool starts a Node child process and returns what that child was started
 * with: NODE_OPTIONS, the modules preloaded by its flags, the OTEL_* variables it sees and whether an OpenTelemetry
 * API was registered in it. A traced `agate run` must add nothing to a child.
 */
import { execFileSync } from 'node:child_process';
import { System, Timeline, Tool, User } from '@agate/core';
import { z } from 'zod';

const REPORT = `console.log(JSON.stringify({
  nodeOptions: process.env.NODE_OPTIONS ?? null,
  preloads: process.execArgv.filter((flag) => /^(--import|--require|-r$|--loader|--experimental-loader)/.test(flag)),
  otelVariables: Object.keys(process.env).filter((k) => k.startsWith('OTEL_')).sort(),
  otelRegistered: globalThis[Symbol.for('opentelemetry.js.api.1')] !== undefined,
}))`;

export default function ChildProcessAgent() {
  return (
    <>
      <System>Report what a child process sees.</System>
      <User>Start a child process.</User>
      <Timeline />
      <Tool
        name="child_process"
        description="Start a Node child process; returns how it was started"
        input={z.object({})}
        execute={() => execFileSync(process.execPath, ['-e', REPORT], { encoding: 'utf8' }).trim()}
      />
    </>
  );
}
