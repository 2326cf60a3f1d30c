# The supervisor of one command in a Docker sandbox (run as `perl -e <source> -- merge|split <command…>`).
# Docker has no way to kill one `exec` and everything it started, and no pid namespace per command;
# this program gives both without any capability. It runs the command as a child subreaper: whatever
# the command starts, even in a new session or after its parent died, stays a descendant, so the
# whole tree can be killed.
#
# Standard input carries frames: one type byte, a 4-byte big-endian length, the payload.
# `G` starts the command (nothing runs before it; the supervisor first writes byte 0x06 on its
# error stream, to say it runs), `D` is data for the command's standard input,
# `E` closes that input, `K` kills the tree. End-of-file (the owner closed the connection or died)
# also kills the tree. The first argument is `merge` (the command's stderr goes to the exec's stdout,
# in order) or `split`; the rest is the command. When the command ends, what it left running is
# killed too, and the exit status is the command's (128+N for signal N).

# Perl's POSIX, Socket and constant modules are left out: loading them took some 11 ms of CPU at
# every start (the supervisor starts once per command), more than the rest of the program; the three
# numbers below are Linux's on every architecture of the table.

use strict;
use Fcntl ();
my ($WNOHANG, $AF_UNIX, $SOCK_STREAM) = (1, 1, 1);
# The machine as `uname -m` names it (POSIX only where the kernel has no /proc/sys/kernel/arch).
sub machine {
  if (open(my $fh, '<', '/proc/sys/kernel/arch')) { my $m = <$fh>; chomp $m if defined $m; return $m if $m }
  require POSIX;
  return (POSIX::uname())[4];
}
my %prctl = (x86_64 => 157, aarch64 => 167, riscv64 => 167, ppc64le => 171, ppc64 => 171, s390x => 172, armv7l => 172, i686 => 172, i386 => 172);
my $nr = $prctl{machine()};
syscall($nr, 36, 1, 0, 0, 0) if defined $nr;
# Non-dumpable (PR_SET_DUMPABLE 0): the commands it runs, root in the same container, can neither trace
# it, nor open its memory or descriptors (its input carries a shell's requests and their nonces).
syscall($nr, 4, 0, 0, 0, 0) if defined $nr;
my $merge = shift(@ARGV) eq 'merge';
$SIG{PIPE} = 'IGNORE';
pipe(my $sr, my $sw) or die "pipe: $!";
for my $fh ($sr, $sw) { my $f = fcntl($fh, Fcntl::F_GETFL(), 0); fcntl($fh, Fcntl::F_SETFL(), $f | Fcntl::O_NONBLOCK()); }
$SIG{CHLD} = sub { syswrite($sw, 'x') };

sub descendants {
  opendir(my $dh, '/proc') or return ();
  my %kids;
  for my $p (readdir $dh) {
    next unless $p =~ /^\d+$/;
    open(my $fh, '<', "/proc/$p/stat") or next;
    my $s = <$fh>;
    close $fh;
    next unless defined $s && $s =~ /\) (\S) (\d+)/;
    next if $1 eq 'Z' || $1 eq 'X';
    push @{$kids{$2}}, $p;
  }
  my @out; my @queue = ($$);
  while (@queue) { my $x = shift @queue; for my $c (@{$kids{$x} || []}) { push @out, $c; push @queue, $c } }
  return @out;
}

my $child; my $status;
sub reap {
  while ((my $p = waitpid(-1, $WNOHANG)) > 0) { $status = $? if defined $child && $p == $child; }
}
sub kill_tree {
  for my $round (1 .. 500) {
    my @d = descendants();
    last unless @d;
    kill 'KILL', @d;
    reap();
    select(undef, undef, undef, 0.005);
  }
  reap();
}
sub finish { kill_tree(); exit($_[0]); }

my $in = '';
my $out = '';
my ($w, $go, $close_after, $wopen) = (undef, 0, 0, 0);
sub frames {
  while (length($in) >= 5) {
    my ($type, $len) = unpack('a N', $in);
    last if length($in) < 5 + $len;
    my $payload = substr($in, 5, $len);
    substr($in, 0, 5 + $len) = '';
    if ($type eq 'D') { $out .= $payload }
    elsif ($type eq 'E') { $close_after = 1 }
    elsif ($type eq 'K') { finish(137) }
    elsif ($type eq 'G') { $go = 1 }
  }
}
sub read_stdin {
  my $n = sysread(STDIN, $in, 65536, length $in);
  if (!defined $n) { return if $!{EINTR} || $!{EAGAIN}; $n = 0 }
  finish(137) if $n == 0;
  frames();
}

# One byte on the exec's error stream before any frame is read: its owner then knows that this
# program runs (docker's start of the exec, whose runc threads take pids in the container, is over).
syswrite(STDERR, "\x06");
until ($go) { read_stdin() }
# A socket, not a pipe: /proc/<pid>/fd/0 of a socket cannot be opened, so no command can read
# the shell's own input (where the next nonce waits).
socketpair(my $r, $w, $AF_UNIX, $SOCK_STREAM, 0) or die "socketpair: $!";
$child = fork();
die "fork: $!" unless defined $child;
if ($child == 0) {
  close $w; close $sr; close $sw;
  # Reopening a standard handle keeps its descriptor number (Perl dup2s onto it).
  open(STDIN, '<&', $r) or die "stdin: $!"; open(STDERR, '>&', \*STDOUT) or die "stderr: $!" if $merge;
  close $r;
  $SIG{PIPE} = 'DEFAULT'; $SIG{CHLD} = 'DEFAULT';
  exec { $ARGV[0] } @ARGV;
  print STDERR "$ARGV[0]: $!\n";
  exit(127);
}
close $r;
$wopen = 1;
{ my $f = fcntl($w, Fcntl::F_GETFL(), 0); fcntl($w, Fcntl::F_SETFL(), $f | Fcntl::O_NONBLOCK()); }
while (1) {
  reap();
  last if defined $status;
  if ($wopen && $close_after && !length($out)) { close $w; $wopen = 0 }
  my ($rin, $win) = ('', '');
  vec($rin, 0, 1) = 1;
  vec($rin, fileno($sr), 1) = 1;
  vec($win, fileno($w), 1) = 1 if $wopen && length($out);
  my $n = select(my $rout = $rin, my $wout = $win, undef, 1);
  next if $n <= 0;
  if (vec($rout, fileno($sr), 1)) { sysread($sr, my $drain, 4096) }
  read_stdin() if vec($rout, 0, 1);
  if ($wopen && length($out) && vec($wout, fileno($w), 1)) {
    my $k = syswrite($w, $out);
    if (defined $k) { substr($out, 0, $k) = '' }
    elsif (!$!{EAGAIN} && !$!{EINTR}) { $out = ''; close $w; $wopen = 0 }
  }
}
my $code = ($status & 127) ? 128 + ($status & 127) : $status >> 8;
finish($code);
