import {
  type BaseEvent,
  EventType,
  HttpAgent,
  type HttpAgentConfig,
  type Message,
  type RunAgentParameters,
  type RunFinishedEvent,
} from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { afterEach, expect, vi } from 'vitest';
import {
  type BaseAgent,
  BaseLlm,
  InMemorySessionService,
  type LlmRequest,
  type LlmResponse,
  type SessionService,
  TEMP_PREFIX,
} from '@troupe/core';
import type { ScriptedModel } from '@troupe/core/testing';
import { createApp, type CreateAppOptions, serve, type ServerHandle } from '../../src/index.js';

// AG-UI tests talk to a real server on 127.0.0.1 through @ag-ui/client's HttpAgent, whose run
// pipeline validates every event (its schema enforcement and its stream verifier: ids opened
// before use, everything closed before RUN_FINISHED, nothing after it) and applies them to its
// messages and state as a front end would.

/** A served app and what the tests look at behind it. */
export interface Served {
  url: string;
  sessionService: SessionService;
  server: ServerHandle;
}

const servers: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Serves `apps` on a free port of 127.0.0.1; closed after the test. */
export async function serveApps(
  apps: Record<string, BaseAgent>,
  options: Partial<CreateAppOptions> = {},
): Promise<Served> {
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const server = await serve(createApp({ apps, sessionService, ...options }), { port: 0 });
  servers.push(server);
  return { url: server.url, sessionService, server };
}

/** An AG-UI client of `/ag-ui/{app}`. */
export function client(served: Served, app: string, config: Partial<HttpAgentConfig> = {}): HttpAgent {
  return new HttpAgent({ url: `${served.url}/ag-ui/${app}`, ...config });
}

/** Adds a user message to the client's conversation. */
export function say(agent: HttpAgent, text: string): void {
  agent.addMessage({ id: `user-${agent.messages.length + 1}`, role: 'user', content: text });
}

/** What one run showed the client. */
export interface RunRecord {
  events: BaseEvent[];
  finished: RunFinishedEvent | undefined;
  types: string[];
  newMessages: Message[];
}

/**
 * Runs the client once and returns the verified events it applied. Fails on anything the client's
 * schema enforcement had to strip (it warns instead of failing) and on an event its own schema
 * rejects, so "the client accepted it" means "it was exactly AG-UI 1.0".
 */
export async function runOnce(agent: HttpAgent, parameters: RunAgentParameters = {}): Promise<RunRecord> {
  const warn = vi.spyOn(console, 'warn');
  const events: BaseEvent[] = [];
  try {
    const { newMessages } = await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
    const agUiWarnings = warn.mock.calls.map((args) => String(args[0])).filter((line) => line.startsWith('[ag-ui]'));
    expect(agUiWarnings).toEqual([]);
    for (const event of events) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
    const finished = events.find((e): e is RunFinishedEvent => e.type === EventType.RUN_FINISHED);
    return { events, finished, types: events.map((e) => e.type), newMessages };
  } finally {
    warn.mockRestore();
  }
}

/** The events of one type. */
export function ofType<T extends BaseEvent>(record: RunRecord, type: EventType): T[] {
  return record.events.filter((e) => e.type === type) as T[];
}

/** The session state of a thread as the client should hold it: without `temp:` keys. */
export async function threadState(
  served: Served,
  app: string,
  userId: string,
  threadId: string,
): Promise<Record<string, unknown>> {
  const session = await served.sessionService.getSession({ appName: app, userId, sessionId: threadId });
  expect(session).toBeDefined();
  return Object.fromEntries(Object.entries(session!.state).filter(([key]) => !key.startsWith(TEMP_PREFIX)));
}

/** A POST of a raw body to `/ag-ui/{app}`, for what HttpAgent would not send. */
export function post(
  served: Served,
  app: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${served.url}/ag-ui/${app}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A minimal valid RunAgentInput with one user message. */
export function input(threadId: string, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    threadId,
    runId: `run-${Math.random().toString(36).slice(2)}`,
    messages: [{ id: 'u1', role: 'user', content: text }],
    tools: [],
    context: [],
    ...extra,
  };
}

/**
 * A ScriptedModel whose streamed chunks come `gapMs` apart, so that agents running side by side
 * (a ParallelAgent's branches) interleave their messages chunk by chunk.
 */
export class PacedModel extends BaseLlm {
  constructor(
    private readonly scripted: ScriptedModel,
    private readonly gapMs: number,
  ) {
    super(scripted.model);
  }

  async *generateContentAsync(
    request: LlmRequest,
    stream = false,
    abortSignal?: AbortSignal,
  ): AsyncGenerator<LlmResponse> {
    for await (const response of this.scripted.generateContentAsync(request, stream, abortSignal)) {
      if (response.partial) await new Promise((resolve) => setTimeout(resolve, this.gapMs));
      yield response;
    }
  }
}
