import { USER_ARTIFACT_PREFIX, type ArtifactService } from '../artifacts/artifact-service.js';
import type { Part } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import { isHistoryRewrite, rewoundEvents } from '../events/rewound-events.js';
import { ConfigurationError, InvocationNotFoundError, SessionNotFoundError } from '../errors.js';
import type { SessionService } from '../sessions/session.js';
import { APP_PREFIX, TEMP_PREFIX, USER_PREFIX } from '../sessions/state-keys.js';
import { newId } from '../utils/ids.js';
import { isCompactionRecord } from './compaction.js';
import { claimSession } from './session-claim.js';

/** What `runner.rewind` takes back. */
export interface RewindParams {
  userId: string;
  sessionId: string;
  /** The invocation to rewind to before: it and every later invocation are rewound. */
  beforeInvocationId: string;
}

/** Everything {@link rewindSession} needs. */
export interface RewindSessionParams {
  sessionService: SessionService;
  artifactService?: ArtifactService | undefined;
  appName: string;
  userId: string;
  sessionId: string;
  beforeInvocationId: string;
  leaseTtlMs: number;
}

// Deleted keys are `undefined` in a delta (every store removes them).
const DELETED = Symbol('deleted');

/**
 * Rewinds a session to before an invocation, under the session's claim (the lease runs take, so
 * `SessionBusyError` while an invocation runs):
 * - state: this session's keys get the values they had before the invocation; keys that did not
 *   exist then are deleted. `user:` and `app:` keys are shared with other sessions and stay as they
 *   are (as in ADK). A key set only at `createSession` and changed by a rewound invocation is
 *   deleted: its initial value is not recorded in any event.
 * - artifacts (with an artifact service): each session artifact a rewound event saved gets its
 *   earlier content back as a new version, or is deleted when it did not exist before; `user:`
 *   artifacts stay.
 * - events: all stay; one rewind event (author `'user'`, `actions.rewindBeforeInvocationId`,
 *   carrying the state and artifact changes) is appended. History and state replay skip the events
 *   from the invocation's first event up to it ({@link rewoundEventIds}).
 */
export async function rewindSession(params: RewindSessionParams): Promise<Event> {
  const { sessionService, appName, userId, sessionId, beforeInvocationId } = params;
  if (typeof beforeInvocationId !== 'string' || beforeInvocationId.length === 0) {
    throw new ConfigurationError(
      `rewind needs beforeInvocationId, the id of an invocation of session '${sessionId}'; got ${JSON.stringify(beforeInvocationId)}.`,
    );
  }
  const key = { appName, userId, sessionId };
  const claim = await claimSession(sessionService, key, params.leaseTtlMs);
  try {
    const session = await sessionService.getSession(key);
    if (!session) {
      throw new SessionNotFoundError(
        `Session '${sessionId}' not found for app '${appName}' and user '${userId}', so there is nothing to rewind.`,
        { session: key },
      );
    }
    const events = session.events;
    const rewound = rewoundEvents(events);
    const start = events.findIndex((e) => e.invocationId === beforeInvocationId);
    if (start < 0 || isHistoryRewrite(events[start]!) || isCompactionRecord(events[start]!)) {
      throw new InvocationNotFoundError(
        `Session '${sessionId}' has no invocation '${beforeInvocationId}' to rewind to. Use the invocationId of one of its turns (the events' invocationId, e.g. of a user message).`,
      );
    }
    if (rewound.has(events[start]!)) {
      throw new ConfigurationError(
        `Invocation '${beforeInvocationId}' of session '${sessionId}' was already rewound. Rewind to an invocation that is still part of the session's history.`,
      );
    }
    const stateDelta = rewindStateDelta(events, start, rewound, session.state);
    const artifactDelta = params.artifactService
      ? await restoreArtifacts(params.artifactService, key, events, start, rewound)
      : {};
    const event = createEvent({
      invocationId: `rewind-${newId()}`,
      author: 'user',
      actions: { stateDelta, artifactDelta, rewindBeforeInvocationId: beforeInvocationId },
    });
    return await sessionService.appendEvent({ session, event, lease: claim.lease });
  } finally {
    await claim.release();
  }
}

/** Refuses to resume an invocation a rewind took back. */
export function refuseRewound(events: readonly Event[], invocationId: string, sessionId: string): void {
  const rewound = rewoundEvents(events);
  if (rewound.size === 0) return;
  const first = events.find((e) => e.invocationId === invocationId);
  if (first && rewound.has(first)) {
    throw new ConfigurationError(
      `Invocation '${invocationId}' of session '${sessionId}' was rewound, so it can no longer be resumed: start a new turn (a new message) instead.`,
    );
  }
}

function isSessionKey(key: string): boolean {
  return !key.startsWith(APP_PREFIX) && !key.startsWith(USER_PREFIX) && !key.startsWith(TEMP_PREFIX);
}

/**
 * The delta that takes this session's keys back to before `start`: their last value in the
 * history before it (rewound events skipped), deleted when none; only keys whose current value differs.
 */
function rewindStateDelta(
  events: readonly Event[],
  start: number,
  rewound: ReadonlySet<Event>,
  current: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const before = new Map<string, unknown>();
  for (let i = 0; i < start; i++) {
    const event = events[i]!;
    if (rewound.has(event)) continue;
    const delta = event.actions.stateDelta;
    for (const key in delta) if (isSessionKey(key)) before.set(key, delta[key] === undefined ? DELETED : delta[key]);
  }
  const keys = new Set(before.keys());
  for (let i = start; i < events.length; i++)
    for (const key in events[i]!.actions.stateDelta) if (isSessionKey(key)) keys.add(key);
  const delta: Record<string, unknown> = {};
  for (const key of keys) {
    const target = before.has(key) ? before.get(key) : DELETED;
    const has = Object.hasOwn(current, key);
    if (target === DELETED) {
      if (has) delta[key] = undefined;
    } else if (!has || JSON.stringify(current[key]) !== JSON.stringify(target)) {
      delta[key] = target;
    }
  }
  return delta;
}

/**
 * Gives each session artifact a rewound event saved its content from before `start` (as a new
 * version), or deletes it when it had none. Every earlier version is loaded before anything is
 * written, so a missing one fails the rewind without a change.
 */
async function restoreArtifacts(
  service: ArtifactService,
  key: { appName: string; userId: string; sessionId: string },
  events: readonly Event[],
  start: number,
  rewound: ReadonlySet<Event>,
): Promise<Record<string, number>> {
  const before = new Map<string, number>();
  for (let i = 0; i < start; i++) {
    const event = events[i]!;
    if (rewound.has(event)) continue;
    for (const [filename, version] of Object.entries(event.actions.artifactDelta)) before.set(filename, version);
  }
  const savedLater = new Map<string, number[]>();
  for (let i = start; i < events.length; i++) {
    for (const [filename, version] of Object.entries(events[i]!.actions.artifactDelta)) {
      if (filename.startsWith(USER_ARTIFACT_PREFIX)) continue;
      savedLater.set(filename, [...(savedLater.get(filename) ?? []), version]);
    }
  }
  const plan: { filename: string; part: Part | undefined }[] = [];
  for (const [filename, later] of savedLater) {
    const artifact = { ...key, filename };
    const versions = await service.listVersions(artifact);
    if (versions.length === 0) continue;
    // An artifact saved before the session recorded it (outside any event) counts as it was then.
    let target = before.get(filename);
    if (target === undefined) {
      const firstLater = Math.min(...later);
      const older = versions.filter((v) => v < firstLater);
      target = older.length > 0 ? older[older.length - 1] : undefined;
    }
    if (target === versions[versions.length - 1]) continue;
    if (target === undefined) {
      plan.push({ filename, part: undefined });
      continue;
    }
    const part = await service.loadArtifact({ ...artifact, version: target });
    if (!part) {
      throw new ConfigurationError(
        `Rewinding session '${key.sessionId}' needs version ${target} of artifact '${filename}', which its artifact service no longer has; nothing was changed. Restore that version, or delete the artifact first.`,
      );
    }
    plan.push({ filename, part });
  }
  const delta: Record<string, number> = {};
  for (const { filename, part } of plan) {
    if (part) delta[filename] = await service.saveArtifact({ ...key, filename, artifact: part });
    else await service.deleteArtifact({ ...key, filename });
  }
  return delta;
}
