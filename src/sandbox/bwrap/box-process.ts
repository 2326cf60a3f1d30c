import { type ChildProcess, spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import type { Duplex, Readable, Writable } from 'node:stream';
import { SandboxError } from '../../core/errors.js';
import { isExecutable } from '../../core/host/is-executable.js';
import type { Cgroup } from '../cgroups.js';

/** How to start one bubblewrap process tree inside a sandbox. */
export interface BoxLaunch {
  /** Pid of the mount helper whose namespace holds the sandbox's root. */
  readonly helperPid: number;
  /** The helper runs in its own user namespace (started as non-root): enter it too. */
  readonly userNamespace: boolean;
  /**
   * Started as root: pid of the holder of the sandboxes' user namespace (ids mapped to unprivileged
   * host ids), which bwrap is started in as its root, never as host root.
   */
  readonly usernsPid: number | null;
  /** The seccomp filter (`struct sock_filter[]`), given to bwrap on a pipe. */
  readonly seccomp: Buffer;
  /** bwrap options (file system, namespaces, environment), without the command. */
  readonly bwrapArgs: readonly string[];
  readonly command: readonly string[];
  readonly cgroup: Cgroup | null;
  /**
   * Label of the sandbox, set as INTERCODE_SANDBOX in the environment of the outer bwrap process
   * (visible to the host and to reapers), never in a command's environment, where every sandbox
   * must look the same (an agent's and an evaluator's `env` output must not differ). bwrap's init
   * inside keeps the outer environment: the label and PATH, nothing else of this process.
   */
  readonly label: string;
  /**
   * The command asks for a go signal on fd 5 (`ready`) and waits for it (`go`) before anything else
   * (see `awaitGo`). It asks only once it runs, when bwrap has already tied the sandbox to its outer
   * process, whose parent-death signal ends it with this process: so if this process dies while the
   * sandbox is still starting, the command reads end-of-file and never runs, and if it dies later the
   * sandbox dies with it. (A session's shell needs none: it reads its commands from stdin, whose
   * end-of-file ends it the same way.)
   */
  readonly handshake?: boolean;
  /**
   * Gives the command a private input on fd 5 (`BoxProcess.channel`): bwrap's init process keeps
   * only fds 0-2, so no other process of the sandbox holds this one (a shell's controller reads its
   * requests there). Not with `handshake`, which uses fd 5 itself.
   */
  readonly channel?: boolean;
}

/** Wraps a command so that it runs only after the go signal of a `handshake` launch. */
export function awaitGo(command: readonly string[]): string[] {
  return [
    'bash',
    '--norc',
    '--noprofile',
    '-c',
    'echo ready >&5 && IFS= read -r -u 5 _ || exit 125; exec 5<&-; exec "$@"',
    'intercode-go',
    ...command,
  ];
}

/** The system's program folders, where the setpriv, nsenter and bwrap chain looks first. */
const SYSTEM_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

let chainPath: string | undefined;

/**
 * PATH of the setpriv, nsenter and bwrap chain: the system's folders, and the folder of each of the
 * three programs where this process's PATH finds it elsewhere. bwrap's init inside the sandbox keeps
 * it (/proc/1/environ), so nothing else of this process's PATH goes there.
 */
function boxChainPath(): string {
  if (chainPath === undefined) {
    const dirs = [...SYSTEM_PATH];
    const searched = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir.startsWith('/'));
    for (const program of ['setpriv', 'nsenter', 'bwrap']) {
      if (SYSTEM_PATH.some((dir) => isExecutable(join(dir, program)))) continue;
      const found = searched.find((dir) => isExecutable(join(dir, program)));
      if (found !== undefined && !dirs.includes(found)) dirs.unshift(found);
    }
    chainPath = dirs.join(delimiter);
  }
  return chainPath;
}

/** The descriptor on which bwrap reads its options (`--args`). */
const ARGS_FD = 7;

/** The descriptor on which bwrap reads the seccomp filter. */
const SECCOMP_FD = 6;

/** A running bubblewrap process tree: its own pid namespace, so killing it kills everything in it. */
export interface BoxProcess {
  readonly child: ChildProcess;
  /** Host pid of bwrap's init inside the sandbox (pid 1 of its pid namespace), the command's parent. */
  readonly innerPid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The command's fd 5, with `channel`. */
  readonly channel?: Duplex;
  /** The last lines bwrap or the command wrote to stderr, once the process has exited. */
  stderrText(): Promise<string>;
  /** Resolves with the exit code (128+N for signal N) when the tree is gone. */
  readonly exited: Promise<number>;
  kill(): void;
}

/**
 * Starts bwrap blocked (`--block-fd`), moves it into the sandbox's cgroup once it reports its pid
 * (`--info-fd`), then lets it run: every process the command ever starts is inside the limits.
 */
export async function startBox(launch: BoxLaunch): Promise<BoxProcess> {
  const nsenter = ['--target', String(launch.helperPid), '--mount'];
  // nsenter enters the mount namespace first (as host root), then the user namespace, where it
  // becomes uid/gid 0: an unprivileged host id.
  if (launch.usernsPid !== null) nsenter.push(`--user=/proc/${launch.usernsPid}/ns/user`);
  else if (launch.userNamespace) nsenter.push('--user', '--preserve-credentials');
  // bwrap's options come on a pipe (`--args`): its init inside the sandbox shows a command line that
  // is the same in every sandbox (`ps`, /proc/1/cmdline), with none of this host's folders.
  const options = [...launch.bwrapArgs, '--seccomp', String(SECCOMP_FD), '--info-fd', '3', '--block-fd', '4'];
  const args = [...nsenter, '--', 'bwrap', '--args', String(ARGS_FD), '--', ...launch.command];
  // setpriv gives the outer bwrap a parent-death signal (kept across exec): when this process dies,
  // so does every sandbox, running commands included (bwrap's --die-with-parent covers only the
  // processes inside, relative to the outer bwrap).
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', 'nsenter', ...args], {
    stdio: [
      'pipe',
      'pipe',
      'pipe',
      'pipe',
      'pipe',
      launch.handshake || launch.channel ? 'pipe' : 'ignore',
      'pipe',
      'pipe',
    ],
    // Only what the chain needs: bwrap's init inside the sandbox keeps this environment, and a
    // command there can read it (/proc/1/environ). Never the host process's own (API keys).
    env: { PATH: boxChainPath(), INTERCODE_SANDBOX: launch.label },
  });
  // bwrap reads its options, then the whole filter, closing each descriptor before the command runs.
  const optionsPipe = (child.stdio as unknown[])[ARGS_FD] as Writable;
  optionsPipe.on('error', () => {});
  optionsPipe.end(Buffer.from(options.map((option) => `${option}\0`).join('')));
  const seccomp = (child.stdio as unknown[])[SECCOMP_FD] as Writable;
  seccomp.on('error', () => {});
  seccomp.end(launch.seccomp);
  const exited = new Promise<number>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? 128 + signalNumber(signal)));
    child.once('error', () => resolve(127));
  });
  const info = child.stdio[3] as Readable;
  const block = child.stdio[4] as Writable;
  block.on('error', () => {});
  child.stdin!.on('error', () => {});
  let stderr = '';
  const onStderr = (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  };
  child.stderr!.on('data', onStderr);

  const innerPid = await new Promise<number>((resolve, reject) => {
    let text = '';
    const fail = () =>
      reject(
        new SandboxError(
          'SANDBOX_START_FAILED',
          `bwrap did not start: ${stderr.trim().split('\n').pop() || 'no message'}`,
        ),
      );
    info.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /"child-pid":\s*(\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    info.on('error', () => {});
    exited.then(() => setImmediate(fail));
  });
  try {
    if (launch.cgroup) {
      launch.cgroup.addProcess(child.pid!);
      launch.cgroup.addProcess(innerPid);
    }
  } catch (error) {
    // The inner process waits on --block-fd and does not die with the outer one: kill both.
    child.kill('SIGKILL');
    try {
      process.kill(innerPid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    block.destroy();
    throw new SandboxError(
      'SANDBOX_START_FAILED',
      `cannot place the sandbox in its cgroup: ${(error as Error).message}`,
    );
  }
  block.end('1');
  if (launch.handshake) {
    // The command asks once it runs, which is after bwrap has tied the sandbox to its outer
    // process; answering only then leaves no moment where a dead owner's command could start.
    const go = (child.stdio as unknown[])[5] as Duplex;
    go.on('error', () => {});
    go.once('data', () => go.end('go\n'));
  }
  info.resume();
  const channel = launch.channel ? ((child.stdio as unknown[])[5] as Duplex) : undefined;
  channel?.on('error', () => {});
  return {
    ...(channel ? { channel } : {}),
    stderrText: async () => {
      await exited;
      return stderr;
    },
    child,
    innerPid,
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr!,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGTERM: 15,
  SIGXCPU: 24,
  SIGXFSZ: 25,
};

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? (SIGNALS[signal] ?? 0) : 0;
}
