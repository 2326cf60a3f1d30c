import type { TurnRecord } from '../agents/agent.js';
import type { TurnRecordData } from '../core/run-files/episode-record-schema.js';

export { EPISODE_RECORD_VERSION, episodeLine } from '../core/run-files/episode-line.js';
export {
  type EpisodeRecord,
  episodeRecordSchema,
  turnRecordSchema,
} from '../core/run-files/episode-record-schema.js';
export { parseEpisodeRecords, readEpisodeRecords } from '../core/run-files/read-episode-records.js';
export { failedEpisodeRecord } from './failed-episode-record.js';

/** True when A and B are assignable both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/**
 * The agents' `TurnRecord` and the turns of the episode record schema must describe the same
 * thing: this fails to compile when either changes without the other.
 */
const turnRecordAgrees: Same<TurnRecord, TurnRecordData> = true;
void turnRecordAgrees;
