import { describe, expect, it } from 'vitest';
import { classifyShellCommand } from './classify-shell-command.js';
import { simpleCommands } from './simple-commands.js';

const words = (text: string) => simpleCommands(text).map((c) => c.words.join(' '));

describe('simpleCommands (unbash)', () => {
  it('a heredoc inside a command substitution stays inside its word', () => {
    // The hand-written splitter this replaced read `EOF` here as a command of its own.
    const text = 'x=$(cat <<EOF\nhello\nEOF\n); ls';
    expect(words(text)).toEqual(['x=$(cat <<EOF\nhello\nEOF\n)', 'ls']);
    expect(classifyShellCommand(text).map((p) => `${p.category}:${p.program}`)).toEqual([
      'discovery:ls',
    ]);
  });

  it('heredoc bodies, here-strings and redirections are attached to their command', () => {
    const [write, run] = simpleCommands("cat > fix.py <<'EOF'\nprint(1)\nEOF\npython fix.py");
    expect(write).toMatchObject({
      words: ['cat'],
      redirects: [{ op: '>', target: 'fix.py' }],
      stdin: 'print(1)',
    });
    expect(run?.words).toEqual(['python', 'fix.py']);
    expect(simpleCommands('cat <<-EOF > a.py\n\tx = 1\n\t\ty\n\tEOF')[0]?.stdin).toBe('x = 1\ny');
    expect(simpleCommands('python - <<< "print(2)"')[0]?.stdin).toBe('print(2)');
    expect(simpleCommands('pytest -q 2>&1 >> log.txt 2>/dev/null')[0]?.redirects).toEqual([
      { op: '>>', target: 'log.txt' },
      { op: '>', target: '/dev/null' },
    ]);
    expect(simpleCommands('make >& build.log')[0]?.redirects).toEqual([
      { op: '>', target: 'build.log' },
    ]);
  });

  it('quotes and escapes are removed; operators are kept between commands', () => {
    const commands = simpleCommands(
      `cd src && FOO=1 pytest -k 'a or b' "t.py" | tail -5; echo \\"done\\"`,
    );
    expect(commands.map((c) => [c.words.join(' '), c.next])).toEqual([
      ['cd src', '&&'],
      ['FOO=1 pytest -k a or b t.py', '|'],
      ['tail -5', ';'],
      ['echo "done"', undefined],
    ]);
  });

  it('compound commands are flattened in source order; a subshell is one level deeper', () => {
    const text =
      'if grep -q x a.py; then sed -i s/x/y/ a.py; else echo no; fi\nfor f in *.pyc; do rm "$f"; done\n(cd tests && pytest)\n{ echo a; echo b; } > out.txt';
    expect(simpleCommands(text).map((c) => `${c.depth}:${c.words.join(' ')}`)).toEqual([
      '0:grep -q x a.py',
      '0:sed -i s/x/y/ a.py',
      '0:echo no',
      '0:rm $f',
      '1:cd tests',
      '1:pytest',
      '0:echo a',
      '0:echo b',
      '0:',
    ]);
    // The group's redirection is a write of its own (the old splitter lost it).
    expect(classifyShellCommand('{ echo a; echo b; } > out.txt').at(-1)).toMatchObject({
      category: 'patch',
      op: 'write',
      paths: ['out.txt'],
    });
  });

  it("says whose failure is the line's exit status", () => {
    const reported = (text: string) =>
      simpleCommands(text).map((c) => `${c.words[0]}:${c.statusReported}`);
    expect(reported('cd x && pytest')).toEqual(['cd:true', 'pytest:true']);
    expect(reported('pytest && echo ok')).toEqual(['pytest:true', 'echo:true']);
    expect(reported('pytest | tail -20')).toEqual(['pytest:false', 'tail:true']);
    expect(reported('pytest; rm -f repro.py')).toEqual(['pytest:false', 'rm:true']);
    expect(reported('pytest || true')).toEqual(['pytest:false', 'true:true']);
    expect(reported('if pytest; then echo ok; fi')).toEqual(['pytest:false', 'echo:true']);
    expect(reported('! pytest')).toEqual(['pytest:false']);
    expect(reported('set -e; pytest; echo done')).toEqual([
      'set:false',
      'pytest:true',
      'echo:true',
    ]);
    expect(reported('set -o pipefail; pytest | tail')).toEqual([
      'set:false',
      'pytest:true',
      'tail:true',
    ]);
    expect(reported('pytest &')).toEqual(['pytest:false']);
  });

  it('never throws: unterminated quotes and heredocs end at the end of the text', () => {
    expect(words('echo "unterminated')).toEqual(['echo unterminated']);
    expect(simpleCommands('cat > a.py <<EOF\nprint(1)')[0]).toMatchObject({
      words: ['cat'],
      stdin: 'print(1)',
    });
    expect(simpleCommands('')).toEqual([]);
    expect(simpleCommands(')))(((')).toBeInstanceOf(Array);
    expect(simpleCommands(`${'('.repeat(5_000)}ls`)).toBeInstanceOf(Array);
  });
});
