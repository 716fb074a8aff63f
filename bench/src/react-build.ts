import { createRequire } from 'node:module';

/**
 * Which React builds this process actually executed. React's entry points pick
 * `*.production.js` or `*.development.js` from NODE_ENV when first imported; Node also lists
 * the other branch in the module cache (parsed for its exports, never run), so only modules
 * marked `loaded` count.
 */
export function loadedReactBuild(): 'production' | 'development' | 'mixed' | 'not loaded' {
  const require = createRequire(import.meta.url);
  const builds = new Set<string>();
  for (const [path, mod] of Object.entries(require.cache)) {
    if (!mod?.loaded) continue;
    const match =
      /[\\/](?:react|react-reconciler)[\\/]cjs[\\/].*\.(production|development)\.js$/.exec(path);
    if (match) builds.add(match[1]!);
  }
  if (builds.size === 0) return 'not loaded';
  if (builds.size > 1) return 'mixed';
  return [...builds][0] as 'production' | 'development';
}
