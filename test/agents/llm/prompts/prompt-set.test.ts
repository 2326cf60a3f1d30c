import { describe, expect, it } from 'vitest';
import { actionParser } from '../../../../src/agents/llm/parsers/action-parser.js';
import { planParser } from '../../../../src/agents/llm/parsers/plan-parser.js';
import { reactParser } from '../../../../src/agents/llm/parsers/react-parser.js';
import { CTF_DEMONSTRATIONS } from '../../../../src/agents/llm/prompts/ctf-demonstrations.js';
import { directAction, reactAnswer } from '../../../../src/agents/llm/prompts/demonstration.js';
import { numberedPlan, PLAN_DEMONSTRATIONS } from '../../../../src/agents/llm/prompts/plan-demonstrations.js';
import {
  type EnvLanguage,
  promptSet,
  type StrategyName,
} from '../../../../src/agents/llm/prompts/prompt-set.js';
import { REACT_DEMONSTRATIONS } from '../../../../src/agents/llm/prompts/react-prompt-set.js';

const ENVS: readonly EnvLanguage[] = ['bash', 'sql', 'python', 'ctf'];
const STRATEGIES: readonly StrategyName[] = ['single', 'try-again', 'react', 'plan-solve', 'tools'];
const LANGUAGE: Readonly<Record<EnvLanguage, RegExp>> = {
  bash: /Bash/,
  sql: /SQL/,
  python: /Python/,
  ctf: /Capture the Flag/,
};
/** How each strategy's system prompt names the answer format. */
const FORMAT: Readonly<Record<StrategyName, (env: EnvLanguage) => RegExp>> = {
  single: (env) => (env === 'sql' ? /```sql/ : env === 'python' ? /```python/ : /```bash/),
  'try-again': (env) => (env === 'sql' ? /```sql/ : env === 'python' ? /```python/ : /```bash/),
  react: () => /execute\[<code>\][\s\S]*submit/,
  'plan-solve': (env) => (env === 'sql' ? /```sql/ : env === 'python' ? /```python/ : /```bash/),
  tools: () => /execute tool[\s\S]*submit/,
};

const SAMPLE: Readonly<Record<EnvLanguage, string>> = {
  bash: 'ls',
  sql: 'SELECT 1',
  python: 'def f():\n    return 1',
  ctf: 'ls',
};

const PAIRS = ENVS.flatMap((env) => STRATEGIES.map((strategy) => [env, strategy] as const));

describe('promptSet', () => {
  it.each(PAIRS)('%s / %s: names the language and the answer format', (env, strategy) => {
    const set = promptSet(env, strategy);
    expect(set.system).toMatch(LANGUAGE[env]);
    expect(set.system).toMatch(FORMAT[strategy](env));
    if (env !== 'ctf') expect(set.system).toMatch(/from 0 to 1/);
    else expect(set.system).toMatch(/picoCTF\{\.\.\.\}/);
    const reminder = set.formatReminder();
    expect(reminder).not.toBe('');
    expect(reminder).not.toBe(set.system);
    expect(set.system).not.toContain(reminder);
    const query = set.query('count the rows of t');
    expect(query).toContain('count the rows of t');
  });

  it.each(PAIRS)('%s / %s: observations show the output or a no-output line', (env, strategy) => {
    const set = promptSet(env, strategy);
    const shown = set.observation({ output: 'row-7', reward: 0.5, query: 'the task' });
    expect(shown).toContain('row-7');
    const empty = set.observation({ output: '  \n', reward: 0, query: 'the task' });
    expect(empty).toMatch(/printed nothing|returned nothing/);
    if (strategy === 'single' || strategy === 'try-again') {
      if (env !== 'ctf') expect(shown).toContain('Reward: 0.5');
      expect(shown).toContain('the task');
      expect(shown).toMatch(/[Tt]ry something different|next answer/);
    }
  });

  it('has demonstrations for ReAct and Plan & Solve only', () => {
    for (const env of ENVS) {
      for (const strategy of STRATEGIES) {
        const set = promptSet(env, strategy);
        const expected = strategy === 'react' || strategy === 'plan-solve';
        expect(set.demonstrations !== undefined && set.demonstrations.length > 0).toBe(expected);
        expect(set.planRequest !== undefined && set.step !== undefined).toBe(strategy === 'plan-solve');
      }
    }
  });

  it('frames SQL try-again as a game and asks for the schema first', () => {
    expect(promptSet('sql', 'try-again').system).toMatch(/game[\s\S]*SHOW TABLES/);
    expect(promptSet('sql', 'single').system).not.toMatch(/game/);
  });

  it('asks Python for a function that tests will call', () => {
    expect(promptSet('python', 'try-again').system).toMatch(/function[\s\S]*hidden tests/);
    expect(promptSet('python', 'try-again').observation({ output: '', query: 'q' })).toMatch(/function/);
  });

  it('tells CTF players to submit the flag or skip', () => {
    for (const strategy of ['single', 'try-again', 'react'] as const) {
      const system = promptSet('ctf', strategy).system;
      expect(system).toMatch(/submit/);
      expect(system).toMatch(/skip/);
    }
  });

  it('Plan & Solve asks for a numbered plan, then one step with the last output', () => {
    const set = promptSet('bash', 'plan-solve');
    expect(set.planRequest?.('tidy /tmp')).toMatch(/tidy \/tmp[\s\S]*numbered/);
    expect(set.step?.({ step: 'List files.' })).toMatch(/^Next step: List files\./);
    const withOutput = set.step?.({ step: 'Delete them.', output: 'a.txt' }) ?? '';
    expect(withOutput.indexOf('a.txt')).toBeLessThan(withOutput.indexOf('Delete them.'));
  });
});

describe('demonstrations', () => {
  it('has 5 SQL, 5 Bash, 3 Python and 3 CTF ReAct examples', () => {
    expect(REACT_DEMONSTRATIONS.sql).toHaveLength(5);
    expect(REACT_DEMONSTRATIONS.bash).toHaveLength(5);
    expect(REACT_DEMONSTRATIONS.python).toHaveLength(3);
    expect(REACT_DEMONSTRATIONS.ctf).toHaveLength(3);
  });

  it.each(ENVS)('%s: every ReAct answer of the examples parses to its action', (env) => {
    const parse = reactParser(env);
    const rendered = promptSet(env, 'react').demonstrations ?? '';
    for (const demo of REACT_DEMONSTRATIONS[env]) {
      expect(rendered).toContain(`Question: ${demo.task}`);
      demo.steps.forEach((step, i) => {
        const answer = reactAnswer(step);
        expect(rendered).toContain(answer);
        const parsed = parse(answer);
        expect(parsed.thought).toBe(step.thought);
        expect(parsed.action).toEqual(
          'code' in step.action
            ? { kind: 'code', code: step.action.code }
            : step.action.submit === undefined
              ? { kind: 'submit' }
              : { kind: 'submit', answer: step.action.submit },
        );
        // Every example ends on a submit, and only there.
        expect('submit' in step.action).toBe(i === demo.steps.length - 1);
      });
    }
  });

  it('the examples of the rendered prompt parse as a model turn each (Observation lines cut)', () => {
    const rendered = promptSet('sql', 'react').demonstrations ?? '';
    const turns = rendered.split(/\n(?=Thought: )/).slice(1);
    expect(turns.length).toBeGreaterThan(15);
    for (const turn of turns) expect(reactParser('sql')(turn).action.kind).not.toBe('invalid');
  });

  it('the CTF examples of the direct prompts parse with the action parser', () => {
    const parse = actionParser('ctf');
    const system = promptSet('ctf', 'try-again').system;
    for (const demo of CTF_DEMONSTRATIONS) {
      for (const step of demo.steps) {
        const answer = directAction(step.action, 'bash');
        expect(system).toContain(answer);
        expect(parse(answer)).toEqual(
          'code' in step.action
            ? { kind: 'code', code: step.action.code }
            : { kind: 'submit', answer: step.action.submit },
        );
      }
    }
  });

  it.each(ENVS)('%s: three example plans, each read back by the plan parser', (env) => {
    const rendered = promptSet(env, 'plan-solve').demonstrations ?? '';
    expect(PLAN_DEMONSTRATIONS[env]).toHaveLength(3);
    for (const demo of PLAN_DEMONSTRATIONS[env]) {
      const plan = numberedPlan(demo.plan);
      expect(rendered).toContain(plan);
      expect(planParser()(plan)).toEqual(demo.plan);
    }
  });

  it('the answer format shown in each system prompt parses', () => {
    for (const env of ENVS) {
      for (const strategy of ['single', 'try-again', 'plan-solve'] as const) {
        const system = promptSet(env, strategy).system;
        const block = /```(\w+)\n([^`]*)\n```/.exec(system);
        expect(block, `${env}/${strategy}`).not.toBeNull();
        // The placeholder is not code (and does not parse); the example's fence does, with code in it.
        expect(actionParser(env)(block![0]).kind).toBe(env === 'sql' ? 'invalid' : 'code');
        const parsed = actionParser(env)(`\`\`\`${block![1]}\n${SAMPLE[env]}\n\`\`\``);
        expect(parsed.kind, `${env}/${strategy}: ${JSON.stringify(parsed)}`).toBe('code');
      }
    }
  });
});
