import { KEYWORDS, RUNNERS, WRAPPERS } from './programs.js';

/**
 * The words of a simple command without what comes before the real command: keywords (`if`,
 * `then`, `do`, …), environment assignments, wrappers (`sudo`, `time`, `nohup`, `timeout 60`,
 * `env X=1`, `xvfb-run -a`), project runners (`poetry run`, `bundle exec`) and `coverage run`
 * (read as `python`). `bareEnv`: the command was `env` with nothing to run (it lists the
 * environment). Stops at `xargs`, whose command's arguments come from stdin.
 */
export function stripWrappers(input: readonly string[]): { words: string[]; bareEnv: boolean } {
  let words = [...input];
  for (;;) {
    const w = words[0];
    if (w === undefined) break;
    if (KEYWORDS.has(w) || /^[A-Za-z_]\w*=/.test(w)) words = words.slice(1);
    else if (WRAPPERS.has(w)) words = words.slice(1);
    // Environment runners: `bundle exec rspec`, `poetry run pytest`, `uv run python x.py`.
    else if (RUNNERS.has(w) && (words[1] === 'exec' || words[1] === 'run')) {
      words = words.slice(2);
      while (words[0]?.startsWith('-')) words = words.slice(1);
    }
    // `coverage run -m pytest` / `coverage run x.py` run Python under coverage.
    else if (w === 'coverage' && words[1] === 'run') {
      const rest = words.slice(2);
      while (rest[0]?.startsWith('-') && rest[0] !== '-m') rest.shift();
      words = ['python', ...rest];
    } else if (w === 'timeout' || w === 'gtimeout') {
      words = words.slice(1);
      while (words[0]?.startsWith('-')) words = words.slice(1);
      words = words.slice(1); // the duration
    } else if (w === 'xvfb-run') {
      words = words.slice(1);
      while (words[0]?.startsWith('-')) words = words.slice(/^-[snefwp]$/.test(words[0]) ? 2 : 1);
    } else if (w === 'env') {
      words = words.slice(1);
      while (words[0] !== undefined && (words[0].startsWith('-') || words[0].includes('=')))
        words = words.slice(1);
      if (words.length === 0) return { words, bareEnv: true };
    } else break;
  }
  return { words, bareEnv: false };
}
