import { describe, expect, it } from 'vitest';
import { LEFTOVER_PROCESSES_COMMAND } from '../../src/sandbox/leftover-processes.js';
import {
  NONCE_LENGTH,
  RENEW_COMMAND,
  STATE_EXPORT_COMMAND,
  WIRE_TOKENS,
} from '../../src/sandbox/shell-protocol.js';
import { ShellRequest, wireCommand } from '../../src/sandbox/shell-request.js';
import { suiteSandbox } from '../support/suite-sandbox.js';

describe('a shell request on the wire', () => {
  it('sends the fixed requests as their tokens, a token itself with a space, the rest as it is', () => {
    expect(wireCommand(RENEW_COMMAND)).toBe(WIRE_TOKENS.renew);
    expect(wireCommand(STATE_EXPORT_COMMAND)).toBe(WIRE_TOKENS.export);
    expect(wireCommand(LEFTOVER_PROCESSES_COMMAND)).toBe(WIRE_TOKENS.leftover);
    for (const token of Object.values(WIRE_TOKENS)) {
      expect(token.startsWith('#')).toBe(true);
      expect(wireCommand(token)).toBe(` ${token}`);
    }
    expect(wireCommand(` ${WIRE_TOKENS.leftover}`)).toBe(` ${WIRE_TOKENS.leftover}`);
    expect(wireCommand('echo a\0b')).toBe('echo ab');
    expect(wireCommand(`${RENEW_COMMAND}\0`)).toBe(WIRE_TOKENS.renew);
    expect(wireCommand('')).toBe('');
  });

  it('ends each request with a fresh nonce of the length the controller reads', () => {
    const seen = new Set<string>();
    // Past one refill of the nonce pool (256 nonces).
    for (let i = 0; i < 600; i += 1) {
      const bytes = new ShellRequest(1024).request('echo hi').toString();
      const [command, nonce = ''] = bytes.split('\0');
      expect(command).toBe('echo hi');
      expect(nonce).toMatch(/^__IC_[0-9a-f]{32}$/);
      expect(nonce.length).toBe(NONCE_LENGTH);
      seen.add(nonce);
    }
    expect(seen.size).toBe(600);
  });
});

describe('the controller and the tokens (bwrap)', () => {
  const sandbox = suiteSandbox({ image: 'host' });

  it('runs a command that is a token as the comment it is, and answers the scan sent as its text', async () => {
    const session = sandbox().session();
    await session.run('export KEEP=1; sleep 30 &');
    for (const token of Object.values(WIRE_TOKENS)) {
      const result = await session.run(token);
      expect(result).toMatchObject({ exitCode: 0, output: '' });
    }
    // Nothing was renewed or exported: the session and its background job are still there.
    expect((await session.run('echo $KEEP')).output).toBe('1\n');
    const leftover = await session.run(LEFTOVER_PROCESSES_COMMAND);
    expect(leftover.exitCode).toBe(0);
    expect(leftover.output.trim().split('\n')).toHaveLength(1);
    // Multibyte text and a long command cross the wire whole.
    const long = `printf '%s' '${'é'.repeat(5000)}' | wc -m`;
    expect((await session.run(long)).output).toBe('5000\n');
  });
});
