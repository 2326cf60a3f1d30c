import { describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/core/task.js';
import {
  createEnvRegistry,
  defineEnvironment,
  type EnvironmentSpec,
  isDefinedEnvironment,
} from '../../src/index.js';

// defineEnvironment on its own, through the public API: the checks of its spec, its brand and its
// registration (the environment it makes is run in sandboxes by defined-env.test.ts).

const dataset: Dataset = {
  id: 'words',
  env: 'words',
  tasks: [
    { id: 'a', index: 0, query: 'print the word', gold: 'apple', meta: {} },
    { id: 'b', index: 1, query: 'print the word', gold: 'berry', meta: {} },
  ],
  assets: {},
};

const spec: EnvironmentSpec = {
  name: 'words',
  description: 'print the word of the task',
  taskFiles: (task) => [{ from: '/srv/words/say.sh', to: `/opt/words/${task.id}.sh` }],
  workdir: (task) => `/play/${task.id}`,
  reward: (context) => (context.history.some((entry) => entry.output.trim() === context.task.gold) ? 1 : 0),
  goldActions: (task) => [`/opt/words/say.sh ${task.gold}`, 'submit'],
};

describe('defineEnvironment', () => {
  it('checks its spec and brands its result', () => {
    expect(() => defineEnvironment({ ...spec, name: 'Bad Name' })).toThrow(/name must be lowercase/);
    expect(() => defineEnvironment({ ...spec, reward: undefined as never })).toThrow(
      /reward must be a function/,
    );
    const definition = defineEnvironment(spec);
    expect(isDefinedEnvironment(definition)).toBe(true);
    expect(isDefinedEnvironment({ ...spec })).toBe(false);
    expect(definition).toMatchObject({ name: 'words', kind: 'sandbox', scoreEveryTurn: false });
    expect(definition.goldActions(dataset.tasks[0]!)).toEqual(['/opt/words/say.sh apple', 'submit']);
    expect(createEnvRegistry([definition]).get('words')).toBe(definition);
    expect(() => createEnvRegistry([defineEnvironment({ ...spec, name: 'ctf' })])).toThrow(
      /already registered/,
    );
  });
});
