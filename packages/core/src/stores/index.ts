/**
 * Building blocks for session stores (`@troupe/core/stores`): what every `SessionService` must do
 * the same way — decide an append (`planAppend`: lease, retried event, version, delta), validate keys,
 * drop `temp:` keys, split a delta by scope, serialise values and run records, report a newer schema,
 * take, renew and release leases (`planLeaseTake`, `checkLeaseParams`, `toSessionLease`) —
 * so the SQLite, PostgreSQL and in-memory stores, and stores written outside Troupe, behave alike.
 * @packageDocumentation
 */
export { assertValidDelta, withoutTempKeys } from '../sessions/state-keys.js';
export { splitDelta, type ScopedDelta, type ScopeChanges } from './scoped-delta.js';
export { encodeJson, checkValueFormat } from './value-codec.js';
export { SchemaVersionError } from '../errors.js';
export { copyEvent } from '../sessions/event-copy.js';
export { updateLiveSession } from './live-session.js';
export {
  planAppend,
  finishAppend,
  type AppendHead,
  type AppendPlan,
  type AppendWrite,
  type AppendDuplicate,
} from './append-plan.js';
export { checkAfterVersion } from './after-version.js';
export {
  ACTIVE_RUN_STATUSES,
  FINAL_RUN_STATUSES,
  supportsRunRecords,
  type RunRecordStatus,
  type RunRecord,
  type RunError,
  type CreateRunParams,
  type RunUpdate,
  type RunCondition,
  type RunFilter,
  type RunRecordStore,
  type RunRecordingSessionService,
} from '../sessions/run-records.js';
export {
  supportsLeases,
  type SessionLease,
  type LeaseParams,
  type LeaseTaken,
  type LeasingSessionService,
} from '../sessions/session-lease.js';
export {
  NO_LEASE,
  canTakeLease,
  checkLeaseParams,
  checkLeaseTtl,
  planLeaseRelease,
  planLeaseRenewal,
  planLeaseTake,
  renewalLostError,
  toSessionLease,
  type LeaseState,
} from './lease-rules.js';
export type { SessionIncrement } from '../sessions/session.js';
export {
  leaseLostError,
  missingLeaseSessionError,
  missingRunSessionError,
  missingSessionError,
  runExistsError,
  sessionBusyError,
  sessionExistsError,
  staleSessionError,
} from './store-errors.js';
export {
  encodeRunRequest,
  encodeRunUpdate,
  runFromRow,
  runListLimit,
  type RunChanges,
  type RunRow,
} from './run-codec.js';
export {
  artifactFromBytes,
  artifactToBytes,
  checkArtifactKey,
  checkScope as checkArtifactScope,
  checkVersion as checkArtifactVersion,
  isUserArtifact,
  resolveMaxArtifactBytes,
  DEFAULT_MAX_ARTIFACT_BYTES,
  MAX_ARTIFACT_FILENAME_LENGTH,
  type ArtifactStoreOptions,
  type ArtifactBytes,
} from '../artifacts/artifact-checks.js';
export { memoryWords } from '../memory/memory-words.js';
export { sessionMemories, type SessionMemory } from '../memory/session-memories.js';
export { planMemoryUpdate, type MemoryProgress, type MemoryUpdate } from '../memory/memory-progress.js';
export {
  searchWords,
  checkMemorySession,
  resolveMaxResults,
  resolveSearchMode,
  checkEmbedder,
  checkListener,
  type ResolvedSearch,
} from '../memory/memory-params.js';
export { embedTexts, checkStoredVectors, type StoredVectorsInfo } from '../memory/embed-texts.js';
export { reciprocalRankFusion } from '../memory/rank-fusion.js';
export { cosineSimilarity, unitVector, dotProduct } from '../memory/vector-math.js';
