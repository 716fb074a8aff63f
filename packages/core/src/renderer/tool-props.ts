import { InvalidElementError } from '../components/render-errors.js';

/** Throws an `InvalidElementError` naming the tool when a prop's value cannot work. */
export type ToolPropCheck = (tool: string, value: unknown) => void;

/**
 * The `<Tool>` props guards read, beyond a tool's own (`category`, `evidence`, `needsApproval`,
 * ...). The family that reads one declares it here and its type by augmenting `ToolGuardProps`
 * (guard-seam/built-in-family-types.ts), so the renderer names none: a declared prop given on a `<Tool>` is copied
 * into the compiled tool's `guard`, checked where it is written.
 */
const declared = new Map<string, ToolPropCheck | undefined>();
/** Bumped by every declaration: a tool compiled before it is compiled again (renderer/compile-tool.ts). */
let version = 0;

/** How many times props were declared so far (compiled tools are kept per version). */
export function declaredToolPropsVersion(): number {
  return version;
}

/** Declares a `<Tool>` prop a guard reads, with the check its value must pass. */
export function defineToolProp(name: string, check?: ToolPropCheck): void {
  const known = declared.get(name);
  if (declared.has(name) && known !== check) {
    throw new InvalidElementError(
      `The <Tool> prop "${name}" is declared twice with different checks (defineToolProp): give your guard's prop another name.`,
    );
  }
  if (!declared.has(name)) version += 1;
  declared.set(name, check);
}

/** A check for props that must be functions of the call's input. */
export function functionPropCheck(name: string): ToolPropCheck {
  return (tool, value) => {
    if (typeof value !== 'function') {
      throw new InvalidElementError(
        `<Tool name="${tool}"> ${name} must be a function of the input.`,
      );
    }
  };
}

/** The declared props given on a `<Tool>`, each checked; `undefined` when none is given. */
export function toolGuardProps(
  tool: string,
  props: Record<string, unknown>,
): Record<string, unknown> | undefined {
  let guard: Record<string, unknown> | undefined;
  for (const [name, check] of declared) {
    const value = props[name];
    if (value === undefined) continue;
    check?.(tool, value);
    guard ??= {};
    guard[name] = value;
  }
  return guard;
}

// The runtime's own: how long a call may run (runtime/tool-limits.ts reads it).
defineToolProp('timeoutMs', (tool, timeout) => {
  if (typeof timeout !== 'number' || !(timeout > 0)) {
    throw new InvalidElementError(
      `<Tool name="${tool}" timeoutMs=${JSON.stringify(timeout)}> needs a number of milliseconds > 0.`,
    );
  }
});
