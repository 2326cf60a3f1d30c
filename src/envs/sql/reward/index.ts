export {
  PyBytes,
  PyDate,
  PyDateTime,
  PyDecimal,
  PyTime,
  PyTimedelta,
  PyTuple,
  type PyValue,
  pyBytesRepr,
  pyFloatRepr,
  pyInt,
  pyRepr,
  pyRowStr,
  pyRowStrs,
  pyStr,
  pyStrRepr,
} from '../../python-compat/python-repr.js';
export { pythonRound } from '../../python-compat/python-round.js';
export {
  compareCodePoints,
  type KendallTauCounts,
  kendallTauB,
  kendallTauCounts,
  kendallTauFromCounts,
} from './kendall-tau.js';
export {
  type SqlReward,
  type SqlRewardDetails,
  type SqlRewardParts,
  type SqlRewardRule,
  sqlReward,
  sqlRewardOfRows,
} from './sql-reward.js';
