import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** A file on the host that no sandbox may see. */
export interface HostSecret {
  readonly path: string;
  readonly content: string;
}

/** Writes secret files in the host's temporary directory and in the user's home (where writable). */
export function writeHostSecrets(): HostSecret[] {
  const secrets: HostSecret[] = [];
  for (const dir of [tmpdir(), homedir()]) {
    // The content shares nothing with the name, so an error message that names the file leaks nothing.
    const name = `.intercode-secret-${randomBytes(8).toString('hex')}`;
    const secret = { path: join(dir, name), content: `content-${randomBytes(16).toString('hex')}\n` };
    try {
      writeFileSync(secret.path, secret.content, { mode: 0o600 });
      secrets.push(secret);
    } catch {
      // An unwritable home: the temporary directory still gives the case its point.
    }
  }
  return secrets;
}

export function removeHostSecrets(secrets: readonly HostSecret[]): void {
  for (const secret of secrets) rmSync(secret.path, { force: true });
}
