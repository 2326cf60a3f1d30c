import { expect } from 'vitest';

// The exact shapes of the wire spec (issue 13) and OpenEnv's envelope, checked key by key: a key too
// many or too few fails, so a shape a typed OpenEnv client would reject cannot pass.

type Json = Record<string, unknown>;

function keys(value: unknown): string[] {
  expect(value, 'an object').toBeTypeOf('object');
  expect(value).not.toBeNull();
  expect(Array.isArray(value)).toBe(false);
  return Object.keys(value as Json).sort();
}

/** Asserts the key set of `value`: every `required` key, no key outside `required` ∪ `optional`. */
export function expectKeys(
  value: unknown,
  required: readonly string[],
  optional: readonly string[] = [],
): void {
  const got = keys(value);
  for (const key of required) expect(got, `missing key "${key}"`).toContain(key);
  const allowed = new Set([...required, ...optional]);
  expect(
    got.filter((key) => !allowed.has(key)),
    'keys outside the spec',
  ).toEqual([]);
}

const ENVELOPE = ['observation', 'reward', 'done', 'terminated', 'truncated', 'info'];
const OBSERVATION = ['output', 'exit_code', 'timed_out', 'task_id', 'turn', 'instruction'];

/** Observation dict of profile `default`: all six keys, with their types. */
export function expectDefaultObservation(observation: unknown): Json {
  expectKeys(observation, OBSERVATION);
  const obs = observation as Json;
  expect(obs.output).toBeTypeOf('string');
  if (obs.exit_code !== null) expect(Number.isInteger(obs.exit_code), 'exit_code integer|null').toBe(true);
  expect(obs.timed_out).toBeTypeOf('boolean');
  expect(obs.task_id).toBeTypeOf('string');
  expect(Number.isInteger(obs.turn), 'turn integer').toBe(true);
  if (obs.instruction !== null) expect(obs.instruction).toBeTypeOf('string');
  return obs;
}

function expectFlags(body: Json): void {
  expect(body.done).toBeTypeOf('boolean');
  expect(body.terminated).toBeTypeOf('boolean');
  expect(body.truncated).toBeTypeOf('boolean');
  expect(body.done, 'done = terminated || truncated').toBe(
    Boolean(body.terminated) || Boolean(body.truncated),
  );
}

/** A reset envelope: reward null, not done, instruction set, turn 0, info without the gold. */
export function expectResetEnvelope(body: unknown, extra: readonly string[] = []): Json {
  expectKeys(body, ENVELOPE, extra);
  const envelope = body as Json;
  expectFlags(envelope);
  expect(envelope.reward, 'reward at reset').toBeNull();
  expect(envelope.done).toBe(false);
  const obs = expectDefaultObservation(envelope.observation);
  expect(obs.turn).toBe(0);
  expect(obs.instruction).toBeTypeOf('string');
  expectKeys(envelope.info, ['dataset', 'task_id', 'index', 'episode_id'], ['ignored_keys']);
  const info = envelope.info as Json;
  expect(info.dataset).toBeTypeOf('string');
  expect(info.task_id).toBe(obs.task_id);
  expect(Number.isInteger(info.index)).toBe(true);
  expect(info.episode_id).toBeTypeOf('string');
  return envelope;
}

/** A step envelope: numeric reward, done = terminated || truncated, no instruction, the step info keys. */
export function expectStepEnvelope(body: unknown, extra: readonly string[] = []): Json {
  expectKeys(body, ENVELOPE, extra);
  const envelope = body as Json;
  expectFlags(envelope);
  expect(envelope.reward).toBeTypeOf('number');
  const obs = expectDefaultObservation(envelope.observation);
  expect(obs.instruction, 'instruction is null on steps').toBeNull();
  expectKeys(envelope.info, ['admissible', 'duration_ms'], ['reward_parts', 'score_limit']);
  const info = envelope.info as Json;
  expect(info.admissible).toBeTypeOf('boolean');
  expect(info.duration_ms).toBeTypeOf('number');
  if (info.reward_parts !== undefined) expect(info.reward_parts).toBeTypeOf('object');
  if (info.score_limit !== undefined) expect(info.score_limit).toBeTypeOf('string');
  return envelope;
}

/** State: exactly the six keys of the spec, with their types. */
export function expectState(state: unknown): Json {
  expectKeys(state, ['episode_id', 'step_count', 'dataset', 'task_id', 'done', 'max_turns']);
  const s = state as Json;
  if (s.episode_id !== null) expect(s.episode_id).toBeTypeOf('string');
  expect(Number.isInteger(s.step_count)).toBe(true);
  if (s.dataset !== null) expect(s.dataset).toBeTypeOf('string');
  if (s.task_id !== null) expect(s.task_id).toBeTypeOf('string');
  expect(s.done).toBeTypeOf('boolean');
  expect(Number.isInteger(s.max_turns)).toBe(true);
  return s;
}

/** Our error body over HTTP: `{"detail": "<one line>", "code": CODE}` (plus `extra` keys). */
export function expectErrorBody(body: unknown, code: string, extra: readonly string[] = []): Json {
  expectKeys(body, ['detail', 'code'], extra);
  const error = body as Json;
  expect(error.code).toBe(code);
  expect(error.detail).toBeTypeOf('string');
  expect(error.detail as string, 'one line, no stack').not.toMatch(/\n/);
  expect((error.detail as string).length).toBeGreaterThan(0);
  return error;
}

/** A 422 body: `{"detail": [{type, loc, msg, input}, …]}` (request_id echoed when sent); returns the list. */
export function expectValidationList(body: unknown): Json[] {
  expectKeys(body, ['detail'], ['request_id']);
  const detail = (body as Json).detail;
  expect(Array.isArray(detail), 'detail is a list').toBe(true);
  const items = detail as Json[];
  expect(items.length).toBeGreaterThan(0);
  for (const item of items) {
    expectKeys(item, ['type', 'loc', 'msg', 'input'], ['ctx', 'url']);
    expect(item.type).toBeTypeOf('string');
    expect(Array.isArray(item.loc)).toBe(true);
    expect(item.msg).toBeTypeOf('string');
  }
  return items;
}

/** A WS error frame `{"type":"error","data":{"message","code",…}}`; returns data. */
export function expectErrorFrame(frame: unknown, code: string, extra: readonly string[] = []): Json {
  expectKeys(frame, ['type', 'data'], ['request_id']);
  const f = frame as Json;
  expect(f.type).toBe('error');
  expectKeys(f.data, ['message', 'code'], extra);
  const data = f.data as Json;
  expect(data.code, `error frame ${JSON.stringify(data)}`).toBe(code);
  expect(data.message).toBeTypeOf('string');
  expect(data.message as string).not.toMatch(/\n\s+at /);
  return data;
}
