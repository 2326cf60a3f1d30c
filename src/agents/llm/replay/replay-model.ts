import { ModelError } from '../../../core/errors.js';
import type { ModelClient } from '../model-client.js';

// PLACEHOLDER (llm-client branch): the replay engineer's ReplayModel replaces this file at merge.
/** The `replay:` model of a recorded trajectory file. */
export function createReplayModel(file: string): ModelClient {
  throw new ModelError(
    'MODEL_UNKNOWN_PROVIDER',
    `--model replay:${file}: the replay provider is not in this build yet`,
  );
}
