import { SOURCE_EXT } from './programs.js';
import { part, resolve, type ShellPart, unknown } from './shell-part.js';

/** `git …`: looking (status, log, diff), searching (grep), or changing the working tree. */
export function classifyGit(args: string[], cwd: string, stdin: string | undefined): ShellPart[] {
  // Options before the subcommand (`git -C dir`, `git --no-pager`).
  let i = 0;
  let dir = cwd;
  while (i < args.length && args[i]!.startsWith('-')) {
    if (args[i] === '-C') {
      dir = resolve(cwd, args[i + 1] ?? '');
      i += 2;
    } else if (args[i] === '-c') i += 2;
    else i++;
  }
  const sub = args[i] ?? '';
  const rest = args.slice(i + 1);
  const files = rest.filter((a) => !a.startsWith('-'));
  switch (sub) {
    case 'status':
    case 'log':
    case 'branch':
    case 'remote':
    case 'tag':
    case 'ls-files':
    case 'rev-parse':
    case 'reflog':
    case 'config':
      return [part('discovery', 'list', [], 'git')];
    case 'diff':
    case 'show':
    case 'blame':
    case 'cat-file':
      return [part('discovery', 'read', [], 'git')];
    case 'grep':
      return [part('search', 'search', [], 'git')];
    case 'apply':
    case 'am':
      if (rest.includes('--check') || rest.includes('--stat'))
        return [part('read', 'read', [], 'git')];
      return [
        diffPart(
          stdin,
          files.map((f) => resolve(dir, f)),
          dir,
          'git',
        ),
      ];
    case 'checkout':
    case 'restore': {
      const dash = rest.indexOf('--');
      const targets =
        dash !== -1
          ? rest.slice(dash + 1)
          : files.filter((f) => f.includes('/') || f.includes('.'));
      // `git checkout .` / `git restore .`: every tracked file back as committed.
      if (
        targets.length === 1 &&
        targets[0] === '.' &&
        dash <= 0 &&
        !rest.some((a) => a.startsWith('--source'))
      ) {
        return [part('patch', 'restore', [], 'git')];
      }
      if (targets.length === 0 || targets.includes('.')) return [unknown('edit', 'git')];
      // Back to the committed state: `restore`, which undoes the run's changes to them.
      const source = rest.some(
        (a) => a === '--source' || a.startsWith('--source=') || /^-\w*s$/.test(a),
      );
      const fromCommit =
        dash > 0 && rest.slice(0, dash).some((a) => !a.startsWith('-') && a !== 'HEAD');
      return [
        part(
          'patch',
          source || fromCommit ? 'edit' : 'restore',
          targets.map((f) => resolve(dir, f)),
          'git',
        ),
      ];
    }
    case 'rm':
    case 'mv':
      return [
        part(
          'patch',
          sub === 'rm' ? 'delete' : 'move',
          files.map((f) => resolve(dir, f)),
          'git',
        ),
      ];
    case 'stash':
      if (rest[0] === 'list' || rest[0] === 'show') return [part('discovery', 'list', [], 'git')];
      // `git stash` puts the changes away, `git stash pop` brings back exactly those.
      if (rest[0] === 'pop' || rest[0] === 'apply') return [{ ...unknown('unstash', 'git') }];
      if (
        rest[0] === undefined ||
        rest[0] === 'push' ||
        rest[0] === 'save' ||
        rest[0].startsWith('-')
      )
        return [unknown('stash', 'git')];
      return [unknown('edit', 'git')];
    case 'reset':
      return rest.includes('--hard') && !rest.some((a) => !a.startsWith('-') && a !== 'HEAD')
        ? [part('patch', 'restore', [], 'git')]
        : rest.includes('--hard')
          ? [unknown('edit', 'git')]
          : [part('other', 'other', [], 'git')];
    case 'merge':
    case 'rebase':
    case 'cherry-pick':
    case 'revert':
    case 'pull':
    case 'switch':
    case 'clean':
      return [unknown(sub === 'clean' ? 'delete' : 'edit', 'git')];
    default:
      return [part('other', 'other', [], 'git')];
  }
}

/** `patch`, `git apply`: the files named in the diff when it is in the command, else unknown. */
export function diffPart(
  diff: string | undefined,
  named: string[],
  cwd: string,
  program: string,
): ShellPart {
  const targets = new Set<string>();
  if (diff !== undefined) {
    for (const m of diff.matchAll(/^\+\+\+ (?:[ab]\/)?(\S+)/gm))
      if (m[1] !== '/dev/null') targets.add(resolve(cwd, m[1]!));
    for (const m of diff.matchAll(/^--- (?:a\/)?(\S+)/gm))
      if (m[1] !== '/dev/null') targets.add(resolve(cwd, m[1]!));
    for (const m of diff.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm))
      targets.add(resolve(cwd, m[1]!.trim()));
  }
  if (targets.size > 0) return part('patch', 'edit', [...targets], program);
  // `patch file.py fix.diff` names its target; `patch -p1 < x.diff` does not.
  if (program === 'patch' && named.length > 0 && SOURCE_EXT.test(named[0]!))
    return part('patch', 'edit', [named[0]!], program);
  return unknown('edit', program);
}
