import type { Hono } from 'hono';
import type { SessionService } from '@troupe/core';
import type { AppRegistry } from './app-registry.js';
import type { Authenticator } from './auth.js';
import type { RunTracker } from './run-tracker.js';

/** What every route of one app shares. */
export interface ServerContext {
  registry: AppRegistry;
  sessionService: SessionService;
  runs: RunTracker;
  auth: Authenticator;
}

/** Hono's environment of the server: the user id the request acts as (`'*'` for admin) and the body size limit. */
export interface ServerEnv {
  Variables: { principal: string; bodyLimit: number };
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
