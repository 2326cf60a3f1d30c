import { describe, expect } from 'vitest';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';

/**
 * Perl (perl-base is in every Debian root) that looks for the nonce of the running command wherever
 * another process of the sandbox could find it: a copy of each descriptor of each process
 * (`pidfd_getfd`, read without blocking) and every writable memory region (`/proc/<pid>/mem`). Each
 * nonce-shaped string found is printed back as an end marker. System call numbers are x86_64's and
 * aarch64's (the same for these two calls).
 */
const STEAL_NONCE = String.raw`
use POSIX (); use Fcntl ();
sub forge { my $t = shift; while ($t =~ /(__IC_[0-9a-f]{32})/g) { syswrite(STDOUT, "$1:0:/forged\0") } }
opendir(my $d, "/proc"); my @pids = grep { /^\d+$/ && $_ != $$ } readdir $d;
for my $pid (@pids) {
  my $pfd = syscall(434, $pid + 0, 0);
  if ($pfd >= 0) {
    for my $fd (0 .. 260) {
      my $c = syscall(438, $pfd, $fd, 0); next if $c < 0;
      open(my $fh, "<&=", $c) or next;
      my $fl = fcntl($fh, Fcntl::F_GETFL(), 0); fcntl($fh, Fcntl::F_SETFL(), $fl | Fcntl::O_NONBLOCK());
      my $b = ""; sysread($fh, $b, 65536); forge($b); close $fh;
    }
    POSIX::close($pfd);
  }
  open(my $maps, "<", "/proc/$pid/maps") or next; open(my $mem, "<", "/proc/$pid/mem") or next;
  while (my $l = <$maps>) {
    next unless $l =~ /^([0-9a-f]+)-([0-9a-f]+) rw/; my ($a, $z) = (hex $1, hex $2);
    next if $z - $a > 64 << 20; sysseek($mem, $a, 0) or next; my $b = ""; sysread($mem, $b, $z - $a); forge($b);
  }
}`;

/** Perl: can this process open the memory of process `$ARGV[0]`, trace it, or copy its descriptors? */
const PROBE_SHELL = String.raw`
my $pid = $ARGV[0] + 0;
print "mem: ", (open(my $m, "<", "/proc/$pid/mem") ? "open" : "denied"), "\n";
my $r = syscall(101, 16, $pid, 0, 0); print "ptrace: ", ($r == 0 ? "attached" : "denied"), "\n";
if ($r == 0) { waitpid($pid, 0); syscall(101, 17, $pid, 0, 0) }
my $pfd = syscall(434, $pid, 0); my $ok = 0;
for my $fd (0 .. 260) { $ok = 1 if syscall(438, $pfd, $fd, 0) >= 0 }
print "pidfd_getfd: ", ($ok ? "copied" : "denied"), "\n";`;

/** Quotes a script for bash. */
function quoted(script: string): string {
  return `'${script.replaceAll("'", "'\\''")}'`;
}

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

    it('keeps the end marker out of reach of a command reading its own descriptors', async ({ sandbox }) => {
      const shell = sandbox.session();
      await shell.run('cd /tmp');
      // Builtins read every descriptor the command holds (a shell's saved copy of its own input
      // among them) and print back whatever looks like a nonce as an end marker.
      const result = await shell.run(
        [
          'for __f in /proc/$BASHPID/fd/*; do',
          `  __n=\${__f##*/}`,
          '  while IFS= read -r -t 0.2 -u "$__n" __l 2>/dev/null; do',
          `    case $__l in __IC_*) printf '%s:0:/forged\\0' "\${__l%%:*}" ;; esac`,
          '  done',
          'done',
          'sleep 0.3; echo still-running; (exit 3)',
        ].join('\n'),
        { timeoutMs: 20_000 },
      );
      expect(result).toMatchObject({ exitCode: 3, timedOut: false });
      expect(result.output).toContain('still-running');
      expect(shell.cwd).toBe('/tmp');
      expect(await shell.run('echo alive')).toMatchObject({ output: 'alive\n', exitCode: 0 });
    });

    it('keeps the end marker out of reach of other processes: descriptors, memory, ptrace', async ({
      sandbox,
    }) => {
      const shell = sandbox.session();
      await shell.run('cd /tmp');
      const result = await shell.run(
        `perl -e ${quoted(STEAL_NONCE)} 2>/dev/null; sleep 0.3; echo still-running; (exit 3)`,
        { timeoutMs: 30_000 },
      );
      expect(result).toMatchObject({ exitCode: 3, timedOut: false });
      expect(result.output).toContain('still-running');
      expect(shell.cwd).toBe('/tmp');
      // `$$` is the shell that prints the end marker: its memory, its descriptors and ptrace are closed.
      const probe = await shell.run(`perl -e ${quoted(PROBE_SHELL)} -- $$`);
      expect(probe.output).toBe('mem: denied\nptrace: denied\npidfd_getfd: denied\n');
      expect(await shell.run('echo alive')).toMatchObject({ output: 'alive\n', exitCode: 0 });
    });

    it('carries variables, functions, aliases, options, umask, traps and the directory stack', async ({
      sandbox,
    }) => {
      const shell = sandbox.session();
      const setup = await shell.run(
        [
          'cd /tmp && mkdir -p state-a state-b',
          'PLAIN=1; export EXPORTED="two words"; declare -a ARR=(x "y z"); declare -A MAP=([k]=v)',
          'declare -i NUM=5; readonly FIXED=ro; unset HOSTNAME',
          'f() { echo "f:$1"; }; alias ll=\'echo aliased\'',
          'shopt -s extglob nullglob expand_aliases; set -o noglob; umask 027',
          "trap 'echo trapped' USR1; pushd state-a >/dev/null; pushd ../state-b >/dev/null",
        ].join('\n'),
      );
      expect(setup).toMatchObject({ exitCode: 0 });
      expect(shell.cwd).toBe('/tmp/state-b');
      const check = await shell.run(
        [
          `echo "$PLAIN|$EXPORTED|\${ARR[1]}|\${MAP[k]}|$((NUM + 1))|$FIXED|\${HOSTNAME-unset}"`,
          `sh -c 'echo "env:$EXPORTED:\${PLAIN-none}"'`,
          'f arg; ll',
          'shopt -q extglob && shopt -q nullglob && echo shopt-kept',
          '[[ $- == *f* ]] && echo set-kept',
          'umask; trap -p USR1; dirs; declare -p NUM FIXED 2>&1',
        ].join('\n'),
      );
      expect(check.output).toBe(
        [
          '1|two words|y z|v|6|ro|unset',
          'env:two words:none',
          'f:arg',
          'aliased',
          'shopt-kept',
          'set-kept',
          '0027',
          "trap -- 'echo trapped' SIGUSR1",
          '/tmp/state-b /tmp/state-a /tmp',
          'declare -i NUM="5"',
          'declare -r FIXED="ro"',
          '',
        ].join('\n'),
      );
      await shell.run('unset PLAIN ARR; unset -f f; unalias ll; set +o noglob; shopt -u extglob');
      const after = await shell.run(
        `echo "\${PLAIN-gone} \${ARR[0]-gone}"; type f ll 2>&1 | grep -c "not found"; [[ $- == *f* ]] || echo glob-on`,
      );
      expect(after.output).toBe('gone gone\n2\nglob-on\n');
    });

    it('gives commands an empty standard input instead of hanging', async ({ sandbox }) => {
      const result = await sandbox
        .session()
        .run('cat; echo "cat=$?"; read -r line; echo "read=$?"; head -c 5; echo "head=$?"', {
          timeoutMs: 5000,
        });
      expect(result).toMatchObject({ output: 'cat=0\nread=1\nhead=0\n', exitCode: 0, timedOut: false });
    });

    // Each command runs in a child of the shell's controller: `exit` (and `exec`, or a failure under
    // `set -e`) ends that command only, and its own changes of the session's state are not kept.
    it('ends only the command on `exit 7`: the session keeps the state it had', async ({ sandbox }) => {
      const shell = sandbox.session();
      await shell.run('cd /tmp; KEPT=1');
      const exited = await shell.run('cd /; LOST=1; exit 7');
      expect(exited).toMatchObject({ exitCode: 7, timedOut: false });
      expect(exited.sessionRestarted).toBeFalsy();
      expect(shell.cwd).toBe('/tmp');
      const after = await shell.run(`pwd; echo "\${KEPT-unset} \${LOST-unset}"; exec true`);
      expect(after).toMatchObject({ output: '/tmp\n1 unset\n', exitCode: 0 });
      expect(after.sessionRestarted).toBeFalsy();
      expect(await shell.run('set -e; false; echo not-reached')).toMatchObject({ output: '', exitCode: 1 });
      expect(await shell.run('[[ $- == *e* ]] || echo "$KEPT no-errexit"')).toMatchObject({
        output: '1 no-errexit\n',
        exitCode: 0,
      });
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

    it('starts a lazy main shell with its first command, and it then behaves as the eager one', async ({
      open,
    }) => {
      const [lazy, eager] = await Promise.all([open({ lazyShell: true }), open()]);
      const idle = (await lazy.stats()).processes;
      expect(idle, 'processes of a sandbox whose lazy shell never ran').toBeLessThan(
        (await eager.stats()).processes,
      );
      const shell = lazy.session();
      expect(shell.cwd).toBe(context.options.cwd);
      expect(await shell.run('cd /tmp && KEPT=41; echo $((KEPT + 1))')).toMatchObject({
        output: '42\n',
        exitCode: 0,
      });
      expect((await shell.run('echo "$PWD $KEPT"')).output).toBe('/tmp 41\n');
      expect((await lazy.stats()).processes).toBeGreaterThan(idle);
      await lazy.reset();
      expect(lazy.session().cwd).toBe(context.options.cwd);
      const after = await lazy.session().run('declare -p KEPT 2>/dev/null || echo unset; pwd');
      expect(after).toMatchObject({ output: `unset\n${context.options.cwd}\n`, exitCode: 0 });
    });

    it('runs in the configured working directory after start', async ({ sandbox }) => {
      const shell = sandbox.session();
      expect(shell.cwd).toBe(context.options.cwd);
      expect((await shell.run('pwd')).output).toBe(`${context.options.cwd}\n`);
    });
  });
}
