import type {
  EnqueueParams,
  EnqueueResumeParams,
  JoinOptions,
  RunInfo,
  ScheduleInfo,
  ScheduleParams,
  StreamEntry,
} from '@troupe/core/hosting';

// The queue createApp's `queue` option takes is core's `BackgroundRuns` contract, which
// `@troupe/queue`'s RunQueue implements: the server serves it without depending on the queue (nor
// on BullMQ and Redis) at runtime. The names below are the server's words for its parts.

export type { BackgroundRuns, MultitaskStrategy } from '@troupe/core/hosting';
export type BackgroundRunParams = EnqueueParams;
export type BackgroundResumeParams = EnqueueResumeParams;
export type BackgroundRunInfo = RunInfo;
export type BackgroundStreamEntry = StreamEntry;
export type BackgroundJoinOptions = JoinOptions;
export type BackgroundScheduleParams = ScheduleParams;
export type BackgroundScheduleInfo = ScheduleInfo;
