import type { Sandbox, SandboxProvider, SandboxSpec, SandboxStats } from '../../src/sandbox/sandbox.js';

/**
 * What a command can see of a sandbox's state, minus what differs between any two new sandboxes
 * (mount ids, times, the host disk's usage, the sandbox's folder): environment, shell state, process ids, /dev, mounts,
 * limits, IPC, the files of /tmp.
 */
export const PROBE = [
  'env | sort',
  'declare -p | grep -v "^declare -[-a-z]* BASH_\\|^declare -[-a-z]* _="',
  'declare -f; alias; umask; pwd; echo "pid $$ $BASHPID"',
  'ps -eo pid,ppid,pgid,sid,stat,comm --sort pid',
  'ls -la --time-style=+ /dev /dev/shm /dev/pts /tmp',
  'cut -d" " -f5- /proc/self/mountinfo',
  'ulimit -a; nice; ionice; taskset -p $$ | cut -d: -f2',
  'ipcs',
  // The controller stays non-dumpable (its environment closed to the sandbox), the filter and limits on.
  'cat /proc/2/environ > /dev/null 2>&1; echo "environ $?"',
  'grep -E "^(Cap|NoNewPrivs|Seccomp)" /proc/self/status',
  'head -1 /proc/net/sockstat; grep -o "tw [0-9]*" /proc/net/sockstat',
].join('; echo ---; ');

/** Runs `work` in a new sandbox of `provider`, closed afterwards whatever happens. */
export async function withSandbox<T>(
  provider: SandboxProvider,
  spec: SandboxSpec,
  work: (sandbox: Sandbox) => Promise<T>,
): Promise<T> {
  const sandbox = await provider.create(spec);
  try {
    return await work(sandbox);
  } finally {
    await sandbox.close();
  }
}

/** The sandbox's reset counts (`SandboxStats.resets`). */
export async function resetsOf(sandbox: Sandbox): Promise<SandboxStats['resets']> {
  return (await sandbox.stats()).resets;
}
