import { DatasetError } from '../../core/errors.js';

/** A MySQL dump the reader cannot read: the message names the line (`dump line 12: …`). */
export class DumpParseError extends DatasetError {
  /** 1-based line in the dump. */
  readonly line: number;

  constructor(line: number, message: string) {
    super('DATASET_INVALID', `dump line ${line}: ${message}`);
    this.line = line;
  }
}
