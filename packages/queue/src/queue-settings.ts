import { ConfigurationError, type SessionService } from '@troupe/core';
import { type RunRecordingSessionService, supportsRunRecords } from '@troupe/core/stores';

/** The store, once it is known to keep run records. */
export function runRecordStore(service: SessionService, what: string): RunRecordingSessionService {
  if (!service || !supportsRunRecords(service)) {
    const name = (service as object | undefined)?.constructor?.name ?? String(service);
    throw new ConfigurationError(
      `${what}: the sessionService (${name}) does not keep run records. Use SqliteSessionService, PostgresSessionService or InMemorySessionService (one process only), or implement RunRecordStore.`,
    );
  }
  return service;
}

/** The Redis key prefix, checked (the queue's and every worker's must be the same). */
export function prefixOf(prefix: unknown, what: string): string {
  if (prefix === undefined) return 'troupe';
  if (typeof prefix !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(prefix)) {
    throw new ConfigurationError(
      `${what}: prefix ${JSON.stringify(prefix)} is not valid; use 1–64 characters of A-Za-z0-9_.- (the same on the queue and every worker).`,
    );
  }
  return prefix;
}

/** A duration option in milliseconds, defaulted and checked. */
export function msOption(value: unknown, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new ConfigurationError(
      `RunQueue: ${name} is ${JSON.stringify(value)}; use a whole number of milliseconds, at least ${min}.`,
    );
  }
  return value;
}
