import type { ShellProcess } from '../persistent-shell.js';
import { controllerArgs } from '../shell-protocol.js';
import type { SupervisedExec } from './supervised-exec.js';

/**
 * Perl that starts the shell controller non-dumpable. The container's processes run as root without
 * capabilities (CapDrop ALL, no-new-privileges), so execve leaves a process non-dumpable when its
 * binary is not readable by it: this program, itself non-dumpable from its first statement (no
 * process can take its descriptors), copies the container's bash into a memfd, makes it
 * execute-only (0111) and executes it. The controller's memory, descriptors and ptrace are then
 * closed to the container's other processes, which lack CAP_SYS_PTRACE. System call numbers:
 * prctl, memfd_create for x86_64 and aarch64. It loads no module (POSIX only where the kernel has no
 * /proc/sys/kernel/arch) and copies with sysread/syswrite (a method call on a handle loads IO::File):
 * 5.5 ms of CPU per shell start here, was 22 ms.
 */
const NON_DUMPABLE_EXEC = String.raw`
my %nr = (x86_64 => [157, 319], aarch64 => [167, 279]);
my $machine;
if (open(my $fh, "<", "/proc/sys/kernel/arch")) { $machine = <$fh>; chomp $machine if defined $machine }
if (!$machine) { require POSIX; $machine = (POSIX::uname())[4] }
my ($prctl, $memfd) = @{$nr{$machine} || die "unknown machine\n"};
syscall($prctl, 4, 0, 0, 0, 0) == 0 or die "prctl: $!\n";
my $name = "bash";
my $fd = syscall($memfd, $name, 0x11);
$fd = syscall($memfd, $name, 0x1) if $fd < 0;
$fd >= 0 or die "memfd_create: $!\n";
open(my $out, ">&=", $fd) or die "memfd: $!\n";
open(my $in, "<:raw", "/usr/bin/bash") or open($in, "<:raw", "/bin/bash") or die "bash: $!\n";
while (1) {
  my $n = sysread($in, my $block, 1 << 20);
  defined $n or die "read: $!\n";
  last if $n == 0;
  for (my $at = 0; $at < $n; ) { $at += syswrite($out, $block, $n - $at, $at) // die "copy: $!\n" }
}
close $in; chmod(0111, $out) or die "chmod: $!\n";
exec { "/proc/self/fd/$fd" } @ARGV or die "exec: $!\n";`;

/** The command that starts a Docker sandbox's shell controller (requests on its stdin, a socket). */
export function dockerControllerCommand(prelude: string): string[] {
  return ['perl', '-e', NON_DUMPABLE_EXEC, '--', 'bash', ...controllerArgs(prelude, 0)];
}

/** How long a killed shell may take to go before it is dropped anyway. */
const KILL_GRACE_MS = 3_000;

/**
 * A Docker sandbox's shell controller as a persistent shell drives it: over an attached, supervised
 * exec. Its stdin is a socket of the supervisor (no `/proc/<pid>/fd` open), and the supervisor is
 * non-dumpable too.
 */
export function dockerShellProcess(exec: SupervisedExec): ShellProcess {
  exec.go();
  return {
    write: (data) => exec.write(data),
    kill: () => exec.kill(),
    exited: exec.exited,
    // A restart replaces the container: dropping the connection makes the supervisor end the tree.
    release: async () => exec.destroy(),
    stop: async () => {
      exec.kill();
      await Promise.race([exec.exited, new Promise((resolve) => setTimeout(resolve, KILL_GRACE_MS))]);
      exec.destroy();
    },
    drop: () => exec.destroy(),
    stderrText: async () => exec.stderr,
  };
}
