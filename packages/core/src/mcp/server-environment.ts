/**
 * What a stdio MCP server inherits of this process's environment unless its `env` says more.
 * Not everything: API keys and the approval key stay here. But what a server needs to start as
 * it would in a terminal — above all one started through `npx`, which fetches its package
 * first — passes: the variables the MCP SDK's `getDefaultEnvironment` passes (the sudo-like
 * list, per platform; a test checks the copy against the SDK), the locale and the temporary
 * directory, the proxy variables in both spellings, and `NODE_EXTRA_CA_CERTS` (a company CA).
 * Without them `npx` behind a proxy or a TLS-inspecting firewall hangs until the handshake's
 * time limit.
 */
export const SDK_INHERITED_ENV: Readonly<Record<'win32' | 'other', readonly string[]>> = {
  win32: [
    'APPDATA',
    'HOMEDRIVE',
    'HOMEPATH',
    'LOCALAPPDATA',
    'PATH',
    'PROCESSOR_ARCHITECTURE',
    'SYSTEMDRIVE',
    'SYSTEMROOT',
    'TEMP',
    'USERNAME',
    'USERPROFILE',
    'PROGRAMFILES',
  ],
  other: ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'],
};

/** Passed besides the SDK's list: what a server started as in a terminal also sees. */
export const TERMINAL_ENV: readonly string[] = [
  'TMPDIR',
  'LANG',
  'NODE_EXTRA_CA_CERTS',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
];

/** The environment a stdio server starts with: the inherited variables, then its own `env`. */
export function serverEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  own: Readonly<Record<string, string>> = {},
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of [
    ...SDK_INHERITED_ENV[platform === 'win32' ? 'win32' : 'other'],
    ...TERMINAL_ENV,
  ]) {
    const value = parent[key];
    // A value starting with `()` is an exported shell function: skipped, as the SDK does.
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return Object.assign(env, own);
}
