import type { PyValue } from './python-value.js';

/** A Python `tuple`. A row handed to {@link pyRowStr} need not be wrapped in one. */
export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}
