import OpenAI from 'openai';
import { afterEach } from 'vitest';
import { type BaseAgent, InMemorySessionService, type SessionService } from '@troupe/core';
import { createApp, type CreateAppOptions, serve, type ServerHandle } from '../../src/index.js';

// The OpenAI-compatible API is tested through OpenAI's own client against a real server on
// 127.0.0.1: what the client accepts (its types, its SSE parser, its error classes) is the contract.

/** A served app and what the tests look at behind it. */
export interface Served {
  url: string;
  sessionService: SessionService;
}

const servers: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Serves `apps` with `openai: true` on a free port of 127.0.0.1; closed after the test. */
export async function serveOpenAi(
  apps: Record<string, BaseAgent>,
  options: Partial<CreateAppOptions> = {},
): Promise<Served> {
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const server = await serve(createApp({ apps, sessionService, openai: true, ...options }), { port: 0 });
  servers.push(server);
  return { url: server.url, sessionService };
}

/** OpenAI's client for the served API; `apiKey` is the bearer token (any value without auth). */
export function openAiClient(served: Served, apiKey = 'unused'): OpenAI {
  return new OpenAI({ baseURL: `${served.url}/v1`, apiKey, maxRetries: 0, timeout: 10_000 });
}

/** The sessions of a user of an app, with their events. */
export async function sessionsOf(served: Served, appName: string, userId = 'openai') {
  const { sessions } = await served.sessionService.listSessions({ appName, userId });
  return Promise.all(
    sessions.map(async (s) => (await served.sessionService.getSession({ appName, userId, sessionId: s.id }))!),
  );
}
