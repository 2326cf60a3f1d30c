import { joinedGold, type Task } from '../../core/task.js';

/** The task's tests (`assert …` strings) and setup code, as MBPP has them. */
export function testsOf(task: Task): string[] {
  const tests = task.meta.tests;
  return Array.isArray(tests) ? tests.map(String) : [];
}

export function setupOf(task: Task): string {
  const setup = task.meta.test_setup_code;
  return typeof setup === 'string' ? setup : '';
}

export function goldOf(task: Task): string {
  return joinedGold(task, '\n') ?? '';
}
