import { readFileSync } from 'node:fs';
import { setprivPath } from './server-binaries.js';

/** A system account a server runs as. */
export interface ServiceAccount {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** The accounts of /etc/passwd by name. */
function passwd(): Map<string, ServiceAccount> {
  const accounts = new Map<string, ServiceAccount>();
  let text = '';
  try {
    text = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return accounts;
  }
  for (const line of text.split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (!name || uid === undefined || gid === undefined) continue;
    accounts.set(name, { name, uid: Number(uid), gid: Number(gid) });
  }
  return accounts;
}

/** True when this process runs as root (servers then run under a service account). */
export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * The account a server runs as when intercode runs as root: the first of `preferred` that exists
 * (`postgres`, then `nobody`, for PostgreSQL, which refuses to run as root). Undefined when this
 * process is not root: the server then runs as this process's own user.
 */
export function serviceAccount(preferred: readonly string[]): ServiceAccount | undefined {
  if (!runningAsRoot()) return undefined;
  const accounts = passwd();
  for (const name of preferred) {
    const account = accounts.get(name);
    if (account && account.uid !== 0) return account;
  }
  return undefined;
}

/**
 * The command prefix that runs a server under `account` (or as this user) and makes the kernel
 * SIGKILL it when this process dies: `setpriv [--reuid U --regid G --clear-groups] --pdeathsig KILL --`.
 * `setpriv` arms the parent-death signal after changing the ids (a credential change would clear it)
 * and then execs the server, so the server is this process's direct child and keeps the signal.
 */
export function serverCommandPrefix(account: ServiceAccount | undefined): string[] {
  const ids = account ? [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups'] : [];
  return [setprivPath(), ...ids, '--pdeathsig', 'KILL', '--'];
}
