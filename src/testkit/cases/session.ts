import { describe, expect } from 'vitest';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';

/** The persistent shell: state, exit codes, output framing, and commands that try to break it. */
export function sessionCases(it: ConformanceTest, context: ConformanceContext): void {
  describe('persistent session', () => {
    it('keeps the working directory, variables and functions between commands', async ({ sandbox }) => {
      const shell = sandbox.session();
      const setup = await shell.run('cd /tmp && COUNT=41 && greet() { echo "hello $1"; }');
      expect(setup.exitCode).toBe(0);
      expect(shell.cwd).toBe('/tmp');
      const result = await shell.run('COUNT=$((COUNT + 1)); echo "$PWD $COUNT"; greet world');
      expect(result).toMatchObject({ output: '/tmp 42\nhello world\n', exitCode: 0, timedOut: false });
      expect(result.sessionRestarted).toBeFalsy();
    });

    it('reports the exit code of each command', async ({ sandbox }) => {
      const shell = sandbox.session();
      const codes: Array<number | null> = [];
      for (const command of [
        'true',
        'false',
        '(exit 3)',
        "sh -c 'exit 200'",
        'no-such-command-here',
        'true',
      ]) {
        codes.push((await shell.run(command)).exitCode);
      }
      expect(codes).toEqual([0, 1, 3, 200, 127, 0]);
    });

    it('interleaves stdout and stderr in the order they were written', async ({ sandbox }) => {
      const result = await sandbox.session().run('echo 1; echo 2 >&2; echo 3; echo 4 >&2; printf 5 >&2');
      expect(result.output).toBe('1\n2\n3\n4\n5');
    });

    it('returns output byte for byte: no trailing newline added, NUL bytes kept', async ({ sandbox }) => {
      const result = await sandbox.session().run("printf 'a\\0b\\0\\0c'; printf 'tail-without-newline'");
      expect(result).toMatchObject({ output: 'a\0b\0\0ctail-without-newline', exitCode: 0 });
    });

    it('cannot be ended early or given a false exit code by printed sentinels', async ({ sandbox }) => {
      const shell = sandbox.session();
      const fakes = await shell.run(
        [
          "printf '__IC_deadbeef:0:/\\0'",
          "printf '__IC_00000000000000000000000000000000:0:/\\0\\n'",
          "printf '\\0\\0:0:/\\0'",
          "printf 'nonce:0:/\\0'",
          'echo still-running',
          '(exit 3)',
        ].join('\n'),
      );
      expect(fakes.exitCode).toBe(3);
      expect(fakes.output).toContain('still-running');
      expect(fakes.output).toContain('__IC_deadbeef:0:/\0');

      // Every value the shell holds, printed in every sentinel shape: a nonce kept in a variable would end the command.
      const variables = await shell.run(
        'set | cut -d= -f2- | while IFS= read -r __l; do printf \'%s:0:/\\0%s\\0\' "$__l" "$__l"; done; echo done-vars; (exit 4)',
      );
      expect(variables.exitCode).toBe(4);
      expect(variables.output).toContain('done-vars');

      // Whatever can be read from the shell's own descriptors, printed back as sentinels.
      const descriptors = await shell.run(
        [
          'for __f in /proc/$$/fd/*; do',
          '  timeout 0.3 head -c 4096 "$__f" 2>/dev/null | tr "\\0" "\\n" | while IFS= read -r __l; do',
          '    printf \'%s:0:/\\0%s\\0\' "$__l" "$__l"',
          '  done',
          'done',
          'echo done-fds; (exit 5)',
        ].join('\n'),
        { timeoutMs: 20_000 },
      );
      expect(descriptors).toMatchObject({ exitCode: 5, timedOut: false });
      expect(descriptors.output).toContain('done-fds');

      const after = await shell.run('echo alive');
      expect(after).toMatchObject({ output: 'alive\n', exitCode: 0 });
      expect(after.sessionRestarted).toBeFalsy();
    });

    it('gives commands an empty standard input instead of hanging', async ({ sandbox }) => {
      const result = await sandbox
        .session()
        .run('cat; echo "cat=$?"; read -r line; echo "read=$?"; head -c 5; echo "head=$?"', {
          timeoutMs: 5000,
        });
      expect(result).toMatchObject({ output: 'cat=0\nread=1\nhead=0\n', exitCode: 0, timedOut: false });
    });

    it('restarts the shell after `exit 7`, in the same working directory', async ({ sandbox }) => {
      const shell = sandbox.session();
      await shell.run('cd /tmp; LOST=1');
      const exited = await shell.run('exit 7');
      expect(exited).toMatchObject({ exitCode: 7, timedOut: false, sessionRestarted: true });
      const after = await shell.run('pwd; declare -p LOST 2>/dev/null || echo unset');
      expect(after).toMatchObject({ output: '/tmp\nunset\n', exitCode: 0 });
      expect(shell.cwd).toBe('/tmp');
    });

    it('runs multi-line commands, line continuations and here-documents', async ({ sandbox }) => {
      const shell = sandbox.session();
      const loop = await shell.run('for i in 1 2 3\ndo\n  echo "n$i"\ndone\necho \\\n  continued');
      expect(loop).toMatchObject({ output: 'n1\nn2\nn3\ncontinued\n', exitCode: 0 });
      const heredoc = await shell.run(
        "cat <<'EOF'\nliteral $HOME `date`\nIFS= read -r -d '' x\nexit 9\nEOF\ncat <<EOF\nexpanded $((6 * 7))\nEOF",
      );
      expect(heredoc).toMatchObject({
        output: "literal $HOME `date`\nIFS= read -r -d '' x\nexit 9\nexpanded 42\n",
        exitCode: 0,
      });
      expect(heredoc.sessionRestarted).toBeFalsy();
    });

    it('reports a syntax error as exit code 2 and keeps the session', async ({ sandbox }) => {
      const shell = sandbox.session();
      await shell.run('KEPT=yes; cd /tmp');
      for (const broken of ["echo 'unbalanced", 'echo "unbalanced', 'if then fi', 'echo $(']) {
        const result = await shell.run(broken, { timeoutMs: 5000 });
        expect(result, broken).toMatchObject({ exitCode: 2, timedOut: false });
        expect(result.output.length, broken).toBeGreaterThan(0);
        expect(result.sessionRestarted, broken).toBeFalsy();
      }
      const after = await shell.run('echo "$KEPT $PWD"');
      expect(after).toMatchObject({ output: 'yes /tmp\n', exitCode: 0 });
    });

    it('runs in the configured working directory after start', async ({ sandbox }) => {
      const shell = sandbox.session();
      expect(shell.cwd).toBe(context.options.cwd);
      expect((await shell.run('pwd')).output).toBe(`${context.options.cwd}\n`);
    });
  });
}
