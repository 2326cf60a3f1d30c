import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../../core/errors.js';
import type { ModelPrice } from './model-price.js';

/** A rate: US dollars per million tokens. */
const rate = z.number().finite().nonnegative();

/**
 * One entry of a price file (`--prices FILE`). `input` and `output` are required; a missing
 * `cachedInput` or `cacheWrite` is charged at the input rate, which may over-state a cost but
 * never under-states it (a cost cap then stops early rather than late).
 */
const priceEntrySchema = z.strictObject({
  input: rate,
  output: rate,
  cachedInput: rate.optional(),
  cacheWrite: rate.optional(),
  /** Where the user read the prices (kept for their own notes). */
  source: z.string().optional(),
  asOf: z.string().optional(),
});

/** A price file: an object of model keys (the keys of docs/agents/cost-and-cache.md) to prices. */
const priceFileSchema = z.record(z.string().min(1), priceEntrySchema);

/** A missing field reads as "missing" rather than "expected number, received undefined". */
const messages: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'missing' : undefined;

/**
 * Reads a user's price file: a JSON object whose keys are model keys and whose values give rates
 * in US dollars per million tokens. Throws a one-line `UsageError` naming the file and, for a
 * bad entry, the field.
 */
export function readPriceFile(file: string): ReadonlyMap<string, ModelPrice> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read';
    throw new UsageError(`--prices ${file}: the file ${reason}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : 'invalid JSON';
    throw new UsageError(`--prices ${file}: not valid JSON (${detail})`, { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `--prices ${file}: expected an object of model names to prices, e.g. {"openai:my-model": {"input": 0.5, "output": 1.5}}`,
    );
  }
  const result = priceFileSchema.safeParse(value, { error: messages });
  if (!result.success) {
    const [issue] = result.error.issues;
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : 'the file';
    const message =
      issue?.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : issue?.message;
    throw new UsageError(
      `--prices ${file}: ${where}: ${message ?? 'invalid'} (rates are US dollars per million tokens: input, output, cachedInput, cacheWrite)`,
    );
  }
  const prices = new Map<string, ModelPrice>();
  for (const [key, entry] of Object.entries(result.data)) {
    prices.set(key.trim().toLowerCase(), {
      input: entry.input,
      output: entry.output,
      cachedInput: entry.cachedInput ?? entry.input,
      cacheWrite: entry.cacheWrite ?? entry.input,
    });
  }
  return prices;
}
