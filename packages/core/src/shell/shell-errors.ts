import { AgateError, nameErrorClass } from '../ground/agate-error.js';

/**
 * The sandbox cannot start (bubblewrap missing, user namespaces off). Never a silent fallback:
 * the command does not run, and the message names the fix.
 */
export class SandboxUnavailableError extends AgateError {
  static {
    nameErrorClass(SandboxUnavailableError, 'SandboxUnavailableError');
  }
}

/**
 * A `sandbox.network.allow` entry that is not `host[:port]` (a URL, a path, a port out of
 * range, an IPv6 address without brackets). Thrown when the policy is resolved, before any
 * command runs.
 */
export class NetworkAllowEntryError extends AgateError {
  static {
    nameErrorClass(NetworkAllowEntryError, 'NetworkAllowEntryError');
  }
}
