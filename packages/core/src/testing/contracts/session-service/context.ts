import { afterEach, beforeEach, expect } from 'vitest';
import type { Event, EventInit, Session, SessionService } from '../../../index.js';
import { USER, event } from './helpers.js';

/** A service under test and how to dispose of it. Extra fields (a file path, a URL) reach `openSecond`. */
export interface SessionServiceFixture {
  service: SessionService;
  /** Closes connections and removes the storage. Called after every test. */
  close?: () => Promise<void>;
}

/**
 * What every part of the suite reads inside its tests. One object for the whole suite whose fields
 * are set afresh before each test, so the parts read them when a test runs, never when it is declared.
 */
export interface SessionContractContext<F extends SessionServiceFixture = SessionServiceFixture> {
  /** What the factory opened for the current test. */
  fixture: F;
  /** `fixture.service`. */
  service: SessionService;
  /**
   * App names of the current test only, so stores whose storage outlives one test (a shared
   * PostgreSQL database) see no state from other tests.
   */
  app: string;
  otherApp: string;
  /** `label` made unique to the current test (for session ids chosen by the test). */
  uid: (label: string) => string;
  /** Runs `close` after the current test, before the fixture is closed (last registered, first run). */
  closeAfterTest: (close: () => Promise<void>) => void;
}

/**
 * Registers, in the enclosing `describe`, the hooks that open a fresh fixture before each test and
 * close it after, and returns the context they keep up to date.
 */
export function contextPerTest<F extends SessionServiceFixture>(factory: () => Promise<F>): SessionContractContext<F> {
  const closers: (() => Promise<void>)[] = [];
  let current: { fixture: F; app: string; otherApp: string; run: string } | undefined;
  const now = () => {
    if (!current) throw new Error('The session-service contract context is read outside a test.');
    return current;
  };
  const context: SessionContractContext<F> = {
    get fixture() {
      return now().fixture;
    },
    get service() {
      return now().fixture.service;
    },
    get app() {
      return now().app;
    },
    get otherApp() {
      return now().otherApp;
    },
    uid: (label) => `${label}-${now().run}`,
    closeAfterTest: (close) => void closers.push(close),
  };

  beforeEach(async () => {
    const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const fixture = await factory();
    current = { fixture, run, app: `contract-app-${run}`, otherApp: `contract-other-app-${run}` };
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await current?.fixture.close?.();
    current = undefined;
  });

  return context;
}

/** The reads and appends most tests make, on the current test's service unless told another. */
export interface SessionCalls {
  get: (sessionId: string, userId?: string, appName?: string) => Promise<Session | undefined>;
  /** Like `get`, failing the test when the session is missing. */
  mustGet: (sessionId: string, userId?: string, appName?: string, from?: SessionService) => Promise<Session>;
  /** Appends a new event made from `init`. */
  append: (session: Session, init?: EventInit, from?: SessionService) => Promise<Event>;
}

/** {@link SessionCalls} on `ctx`. */
export function sessionCalls(ctx: SessionContractContext): SessionCalls {
  return {
    get: (sessionId, userId = USER, appName = ctx.app) => ctx.service.getSession({ appName, userId, sessionId }),
    mustGet: async (sessionId, userId = USER, appName = ctx.app, from = ctx.service) => {
      const session = await from.getSession({ appName, userId, sessionId });
      expect(session, `session '${sessionId}' should exist`).toBeDefined();
      return session!;
    },
    append: (session, init = {}, from = ctx.service) => from.appendEvent({ session, event: event(init) }),
  };
}
