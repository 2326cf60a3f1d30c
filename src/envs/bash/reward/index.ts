export { pythonRound } from '../../python-compat/python-round.js';
export {
  answerSimilarity,
  answerSimilarityScore,
  BASE_REWARD,
  type BashReward,
  type BashRewardDetails,
  type BashRewardInput,
  type BashRewardParts,
  bashReward,
  CONTENT_CHECKED_STATUSES,
  contentCheckedChanges,
  fileChangesScore,
  fileDiffScore,
  PART_WEIGHT,
  type SameContent,
  sumRewardParts,
} from './bash-reward.js';
export { erf } from './erf.js';
export { formatGitStatus, type GitStatusEntry, parseGitStatus, pythonSplit } from './git-status.js';
export { tfidfCosine, tfidfTokens } from './tfidf-cosine.js';
