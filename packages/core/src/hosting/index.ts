/**
 * For code that hosts runs for others (`@troupe/core/hosting`): servers, queues, workers and protocol
 * adapters. The background-runs contract that `@troupe/queue` implements and `@troupe/server` serves,
 * bearer-token checks, the invocation id format, a session's open interrupts and rewound events,
 * whether a session is busy in this process, what a run that threw left stored, and the input
 * limits every protocol route holds request bodies to (JSON shape, body size, id length) and a body
 * reader held to the size limit. An
 * application that only builds and runs agents needs none of it; it lives here so the root entry
 * stays the API users write against.
 * @packageDocumentation
 */
export type {
  BackgroundRuns,
  EnqueueParams,
  EnqueueResumeParams,
  JoinOptions,
  MultitaskStrategy,
  RunInfo,
  ScheduleInfo,
  ScheduleParams,
  StreamEntry,
} from '../runner/background-runs.js';
export { tokenVerifier, type TokenAuthOptions, type TokenVerifier } from '../utils/token-auth.js';
export { INVOCATION_ID_PATTERN } from '../runner/run-arguments.js';
export { isSessionBusy } from '../runner/session-lock.js';
export { storedOutcomeOf, type RunStoredOutcome, type StoredOutcome } from '../runner/stored-outcome.js';
export { checkResponses, openInterrupts } from '../interrupts/open-interrupts.js';
export { rewoundEventIds, rewoundEvents } from '../events/rewound-events.js';
export {
  DEFAULT_BODY_LIMIT,
  DEFAULT_JSON_LIMITS,
  jsonValueProblem,
  MAX_ID_LENGTH,
  nestingProblem,
  type JsonLimitProblem,
  type JsonLimits,
} from './json-limits.js';
export { readLimitedBody, type UnreadBody } from './read-body.js';
