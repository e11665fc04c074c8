import type { Hono } from 'hono';
import type { SessionService } from '@troupe/core';
import type { AppRegistry } from './app-registry.js';
import type { BackgroundRuns } from './background-runs.js';
import type { Authenticator } from './auth.js';
import type { ErrorListener } from './error-response.js';
import type { HostPolicy } from './host-check.js';
import type { JsonLimits } from './json-limits.js';
import type { RunTracker } from './run-tracker.js';
import type { StateLimits } from './state-policy.js';

/** What every route of one app shares. */
export interface ServerContext {
  registry: AppRegistry;
  sessionService: SessionService;
  runs: RunTracker;
  auth: Authenticator;
  /** The server's own host names; `serve` records the address and port it binds. */
  hosts: HostPolicy;
  /** Sizes a request's `state` or `stateDelta` may have. */
  stateLimits: Required<StateLimits>;
  /** createApp's `queue`: runs go to workers. Undefined: runs execute in this process. */
  queue: BackgroundRuns | undefined;
  /** createApp's `onError`, if any. */
  onError: ErrorListener | undefined;
}

/** Hono's environment of the server: what createApp's middleware stores on each request. */
export interface ServerEnv {
  Variables: {
    /** The user id the request acts as (`'*'` for admin). */
    principal: string;
    /** Largest body accepted, in bytes. */
    bodyLimit: number;
    /** Shape limits of JSON bodies. */
    jsonLimits: Required<JsonLimits>;
    /** The request's id (`X-Request-Id`). */
    requestId: string;
  };
}

/** The app type `createApp` returns. */
export type TroupeApp = Hono<ServerEnv>;

const contexts = new WeakMap<object, ServerContext>();

/** Links an app to its context, so that `serve` can check its auth and drain its runs. */
export function registerContext(app: TroupeApp, context: ServerContext): void {
  contexts.set(app, context);
}

/** The context of an app made by `createApp`, if it is one. */
export function contextOf(app: object): ServerContext | undefined {
  return contexts.get(app);
}
