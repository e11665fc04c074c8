import { InMemorySessionService } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { createSessionStore, MEMORY_STORE_BOUND } from '../src/session-store.js';

describe('--memory stores', () => {
  it('are bounded, so a long-lived troupe api --memory does not grow without end', async () => {
    const store = createSessionStore({ cwd: process.cwd(), memory: true });
    expect(store.service).toBeInstanceOf(InMemorySessionService);
    const service = store.service as InMemorySessionService;
    expect(MEMORY_STORE_BOUND).toEqual({ maxSessions: 10_000, idleTtlMs: 86_400_000 });
    for (let i = 0; i <= MEMORY_STORE_BOUND.maxSessions; i++) {
      await service.createSession({ appName: 'app', userId: 'u', sessionId: `s${i}` });
    }
    expect(service.sessionCount).toBe(MEMORY_STORE_BOUND.maxSessions);
    expect(await service.getSession({ appName: 'app', userId: 'u', sessionId: 's0' })).toBeUndefined();
    await store.close();
  });
});
