import { describe, expect, it } from 'vitest';
import { atifTrajectorySchema } from '../../../src/harness/export/atif-schema.js';
import { type AtifRunContext, episodeTrajectory } from '../../../src/harness/export/atif-trajectory.js';
import { sampleRecord } from '../sample-records.js';
import { PREFIXES, toolsEpisode, tryAgainEpisode } from './atif-fixtures.js';

const context: AtifRunContext = {
  runName: 'nl2bash-llm',
  version: '9.9.9',
  agent: 'llm',
  model: 'openai:gpt-4',
  strategy: 'try-again',
  env: 'bash',
  prefixes: PREFIXES,
};

/** The trajectory, checked against the ATIF schema. */
function trajectory(...args: Parameters<typeof episodeTrajectory>) {
  const value = episodeTrajectory(...args);
  const checked = atifTrajectorySchema.safeParse(value);
  expect(checked.error?.issues).toBeUndefined();
  return value;
}

describe('episodeTrajectory', () => {
  it('expands the shared prefix, shows each new message once, and makes one agent step per model call', () => {
    const t = trajectory(tryAgainEpisode(), context);
    expect(t).toMatchObject({
      schema_version: 'ATIF-v1.7',
      session_id: 'nl2bash-llm',
      trajectory_id: 'nl2bash-llm/fs1/3',
      agent: {
        name: 'intercode',
        version: '9.9.9',
        model_name: 'openai:gpt-4',
        extra: { agent: 'llm', strategy: 'try-again' },
      },
      extra: {
        task_id: 'fs1/3',
        dataset: 'nl2bash',
        env: 'bash',
        group: 'fs1',
        gold: 'find /testbed -type f | wc -l',
      },
    });
    expect(t.steps.map((s) => [s.step_id, s.source, s.llm_call_count])).toEqual([
      [1, 'system', undefined],
      [2, 'user', undefined],
      [3, 'agent', 1],
      [4, 'user', undefined],
      [5, 'agent', 1],
      [6, 'user', undefined],
      [7, 'agent', 1],
    ]);
    expect(t.steps[0]!.message).toBe(PREFIXES.a1b2c3[0]!.content);
    expect(t.steps[3]!.message).toMatch(/^Your answer held no bash code block/);
    // The refusal: its reasoning, the format reminder as its observation, inadmissible, reward 0.
    expect(t.steps[2]).toMatchObject({
      message: 'I cannot help with that.',
      reasoning_content: 'Unsure.',
      observation: { results: [{ content: expect.stringMatching(/^Your answer held no bash code block/) }] },
      metrics: {
        prompt_tokens: 120,
        completion_tokens: 30,
        cached_tokens: 100,
        cost_usd: 0.002,
        extra: { reasoning_tokens: 8 },
      },
      extra: { turn: 0, reward: 0, admissible: false, format_error: 'no code block' },
    });
    expect(t.steps[4]!.extra).toMatchObject({
      turn: 1,
      reward: 0.01,
      retries: [{ attempt: 1, reason: '429', wait_ms: 1000 }],
    });
    // An unpriced call has no cost_usd, and says why; the answer came from the response cache.
    expect(t.steps[6]!.metrics).not.toHaveProperty('cost_usd');
    expect(t.steps[6]).toMatchObject({
      metrics: { extra: { cost_unknown: true } },
      extra: { reward: 1, admissible: true, response_cache: true, reward_parts: { file_diff: 0.33 } },
    });
    expect(t.final_metrics).toEqual({
      total_prompt_tokens: 360,
      total_completion_tokens: 90,
      total_cached_tokens: 300,
      total_steps: 7,
      extra: expect.objectContaining({
        reasoning_tokens: 24,
        llm_call_count: 3,
        cost_unknown: true,
        reward: 1,
        success: true,
      }),
    });
  });

  it('maps tool calls, keeping arguments that are not JSON as text, and ties the observation to the call', () => {
    const t = trajectory(toolsEpisode(), context);
    expect(t.steps.map((s) => s.source)).toEqual(['system', 'user', 'agent', 'agent']);
    expect(t.steps[2]).toMatchObject({
      tool_calls: [
        {
          tool_call_id: 'call_1',
          function_name: 'execute',
          arguments: {},
          extra: { arguments_text: '{"command": ls', arguments_valid: false },
        },
      ],
      observation: { results: [{ source_call_id: 'call_1', content: 'the arguments are not valid JSON' }] },
    });
    expect(t.steps[3]).toMatchObject({
      tool_calls: [{ tool_call_id: 'call_2', function_name: 'submit', arguments: {} }],
      observation: { results: [{ source_call_id: 'call_2' }] },
    });
    expect(t.final_metrics).toMatchObject({ total_cost_usd: 0.004, total_steps: 4 });
  });

  it('marks messages sent again after the dialogue was cut as copied context', () => {
    const episode = tryAgainEpisode();
    const [t0, t1, t2] = episode.turns;
    // The dialogue limit dropped the refusal: the reminder and the second answer are sent again.
    const cut = t2!.llm!.calls[0]!.messages.filter((m) => m.content !== 'I cannot help with that.');
    const turns = [t0!, t1!, { ...t2!, llm: { calls: [{ ...t2!.llm!.calls[0]!, messages: cut }] } }];
    const t = trajectory({ ...episode, turns }, context);
    const copied = t.steps.filter((s) => s.is_copied_context).map((s) => [s.source, s.llm_call_count]);
    expect(copied).toEqual([
      ['user', undefined],
      ['agent', 0],
    ]);
    expect(t.steps.at(-2)).toMatchObject({ source: 'user', message: expect.stringMatching(/^Output: ls/) });
  });

  it('makes a gold episode one agent step per action, no model call, reward in extra', () => {
    const t = trajectory(sampleRecord('count', { index: 4 }), {
      runName: 'gold-run',
      version: '1',
      agent: 'gold',
      prefixes: {},
    });
    expect(t.agent).toEqual({ name: 'intercode', version: '1', extra: { agent: 'gold' } });
    expect(t.steps).toEqual([
      { step_id: 1, source: 'user', message: 'How many files does count count?' },
      {
        step_id: 2,
        source: 'agent',
        message: 'ls | wc -l',
        observation: { results: [{ content: '5\n' }] },
        llm_call_count: 0,
        extra: expect.objectContaining({ turn: 0, action: 'ls | wc -l', reward: 1, admissible: true }),
      },
    ]);
    expect(t.final_metrics).toMatchObject({
      total_prompt_tokens: 0,
      total_cost_usd: 0,
      extra: { llm_call_count: 0 },
    });
  });

  it("carries a turn's score details in extra.score_details", () => {
    const details = { goldOutput: '5\n', agentChanges: [], evalChanges: [{ status: 'A', path: 'x' }] };
    const record = sampleRecord('count');
    const turns = [{ ...record.turns[0]!, details }];
    const t = trajectory(
      { ...record, turns },
      { runName: 'gold-run', version: '1', agent: 'gold', prefixes: {} },
    );
    expect(t.steps[1]!.extra).toMatchObject({ reward_parts: record.turns[0]!.parts, score_details: details });
    expect(
      trajectory(record, { runName: 'r', version: '1', agent: 'gold', prefixes: {} }).steps[1]!.extra,
    ).not.toHaveProperty('score_details');
  });

  it('keeps an episode that failed to play as its task and a note', () => {
    const failed = sampleRecord('lost', {
      turns: [],
      turnsTaken: 0,
      maxReward: 0,
      success: false,
      error: 'endpoint gone',
    });
    const t = trajectory(failed, context);
    expect(t.steps).toHaveLength(1);
    expect(t.notes).toBe('the episode could not be played: endpoint gone');
    expect(t.final_metrics?.extra).toMatchObject({ error: 'endpoint gone', success: false });
  });

  it('fails in one line when a call names a prefix prefixes.json lacks', () => {
    expect(() => episodeTrajectory(tryAgainEpisode(), { ...context, prefixes: {} })).toThrow(
      'episode fs1/3, turn 0: its model call names the shared prompt prefix a1b2c3, which prefixes.json of the run lacks',
    );
  });
});

describe('atifTrajectorySchema', () => {
  it('refuses what ATIF does not allow', () => {
    const good = episodeTrajectory(tryAgainEpisode(), context);
    const bad = (change: (t: typeof good) => unknown) =>
      atifTrajectorySchema.safeParse(change(structuredClone(good))).success;
    expect(bad((t) => t)).toBe(true);
    expect(bad((t) => ({ ...t, schema_version: 'ATIF-v1.6' }))).toBe(false);
    expect(bad((t) => ({ ...t, steps: [] }))).toBe(false);
    expect(bad((t) => ({ ...t, steps: t.steps.map((s, i) => ({ ...s, step_id: i + 2 })) }))).toBe(false);
    expect(
      bad((t) => ({ ...t, steps: [{ ...t.steps[0]!, metrics: { prompt_tokens: 1 } }, ...t.steps.slice(1)] })),
    ).toBe(false);
    expect(bad((t) => ({ ...t, steps: [{ ...t.steps[0]!, source: 'tool' }, ...t.steps.slice(1)] }))).toBe(
      false,
    );
    expect(bad((t) => ({ ...t, agent: { name: 'x' } }))).toBe(false);
    expect(bad((t) => ({ ...t, reward: 1 }))).toBe(false);
  });
});
