import type * as A2a from '@troupe/a2a';
import {
  type ArtifactService,
  type BaseAgent,
  type BaseLlm,
  type MemoryService,
  Runner,
  type SessionService,
} from '@troupe/core';
import { type AuthOptions, discoverApps, HttpError, type ImportModule, type TroupeApp } from '@troupe/server';
import { CliUsageError } from '../errors.js';

/** Where the apps of `troupe api --a2a` come from: the one agent of a file, or the folders of a directory. */
export type A2aAppSource =
  | { single: { appName: string; agent: BaseAgent } }
  | { agentsDir: string; importModule: ImportModule; model: BaseLlm | string | undefined };

/** What the A2A apps share with the HTTP API they are mounted beside. */
export interface A2aMountOptions {
  source: A2aAppSource;
  sessionService: SessionService;
  artifactService: ArtifactService;
  memoryService: MemoryService;
  defaultModel: BaseLlm | string | undefined;
  auth: AuthOptions | undefined;
  /** The server's URL once it listens (the cards name it); read on the first A2A request. */
  serverUrl: () => string;
}

/** The A2A apps mounted on a server, to stop with it. */
export interface MountedA2a {
  /** Lets their running tasks finish for the grace period, then cancels the rest. */
  shutdown(gracePeriodMs: number): Promise<void>;
}

/**
 * Serves every app of `troupe api` over A2A at `/a2a/{app}` beside the HTTP API, its agent card at
 * `/a2a/{app}/.well-known/agent-card.json`: each app's `a2aApp` (from `@troupe/a2a`, imported now
 * only) is made on its first A2A request, with a runner on the API's session store and default
 * model, and the API's token. The routes sit behind the server's host and origin checks.
 */
export async function mountA2a(app: TroupeApp, options: A2aMountOptions): Promise<MountedA2a> {
  const { a2aApp } = await importA2a();
  const made = new Map<string, Promise<A2a.A2aApp>>();

  const rootAgentOf = async (name: string): Promise<BaseAgent> => {
    const source = options.source;
    if ('single' in source) {
      if (source.single.appName === name) return source.single.agent;
    } else {
      // Found as the API finds its apps (a folder listing, no code run); loaded once, on first use.
      const apps = await discoverApps(source.agentsDir, {
        importModule: source.importModule,
        loadAgentOptions: { ...(source.model ? { model: source.model } : {}) },
      });
      const found = apps.find((d) => d.name === name);
      if (found) return found.load();
    }
    throw new HttpError(
      404,
      'APP_NOT_FOUND',
      `There is no app '${name}' to serve over A2A. GET /list-apps lists the apps; each is at /a2a/{app}.`,
    );
  };
  const subApp = (name: string): Promise<A2a.A2aApp> => {
    let sub = made.get(name);
    if (!sub) {
      sub = (async () => {
        const agent = await rootAgentOf(name);
        const runner = new Runner({
          appName: name,
          agent,
          sessionService: options.sessionService,
          artifactService: options.artifactService,
          memoryService: options.memoryService,
          ...(options.defaultModel === undefined ? {} : { defaultModel: options.defaultModel }),
        });
        return a2aApp(agent, {
          baseUrl: `${options.serverUrl()}/a2a/${encodeURIComponent(name)}`,
          runner,
          ...(options.auth ? { auth: options.auth } : {}),
        });
      })();
      made.set(name, sub);
      // An app that failed to load is tried again on the next request.
      void sub.catch(() => made.delete(name));
    }
    return sub;
  };

  const forward = async (name: string, request: Request): Promise<Response> => {
    const sub = await subApp(name);
    const url = new URL(request.url);
    url.pathname = url.pathname.slice(`/a2a/${encodeURIComponent(name)}`.length) || '/';
    return sub.fetch(new Request(url, request));
  };
  app.all('/a2a/:app', (c) => forward(c.req.param('app'), c.req.raw));
  app.all('/a2a/:app/*', (c) => forward(c.req.param('app'), c.req.raw));

  return {
    async shutdown(gracePeriodMs) {
      const subs = await Promise.allSettled(made.values());
      await Promise.all(subs.flatMap((s) => (s.status === 'fulfilled' ? [s.value.shutdown({ gracePeriodMs })] : [])));
    },
  };
}

async function importA2a(): Promise<typeof A2a> {
  try {
    return await import('@troupe/a2a');
  } catch (error) {
    throw new CliUsageError(
      `--a2a needs the package @troupe/a2a, which could not be loaded (${(error as Error).message}). Install it next to @troupe/cli: npm install @troupe/a2a`,
    );
  }
}
