import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { checkQueueName, episodeJobId, newRunId } from '../../src/queue/queue-keys.js';
import { redisOptionsOf, redisUrlForDisplay } from '../../src/queue/redis-url.js';

describe('redisOptionsOf', () => {
  it('reads host, port, credentials, database and TLS from the URL', () => {
    expect(redisOptionsOf('redis://u:p%40ss@queue.internal:6380/2')).toMatchObject({
      host: 'queue.internal',
      port: 6380,
      username: 'u',
      password: 'p@ss',
      db: 2,
      maxRetriesPerRequest: null,
    });
    expect(redisOptionsOf('rediss://h')).toMatchObject({ host: 'h', port: 6379, tls: {} });
  });

  it('refuses what is not a Redis URL, in one line naming it', () => {
    expect(() => redisOptionsOf('localhost:6379')).toThrow(UsageError);
    expect(() => redisOptionsOf('http://h')).toThrow(/--redis http:\/\/h: the scheme must be redis:\/\//);
    expect(() => redisOptionsOf('redis://h/x')).toThrow(/database number/);
  });

  it('hides the password in messages', () => {
    expect(redisUrlForDisplay('redis://u:secret@h:1')).toBe('redis://u:***@h:1');
  });
});

describe('queue names and job ids', () => {
  it('job ids join run, task index and sample with dots (BullMQ ids may not hold colons)', () => {
    const runId = newRunId();
    expect(runId).toMatch(/^r[0-9a-z]+$/);
    expect(episodeJobId(runId, 12, 3)).toBe(`${runId}.12.3`);
  });

  it('refuses a queue name with a colon', () => {
    expect(checkQueueName('nightly-1')).toBe('nightly-1');
    expect(() => checkQueueName('a:b')).toThrow(/--queue a:b/);
  });
});
