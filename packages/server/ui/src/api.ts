import type {
  AgentGraphNode,
  ErrorBody,
  EvalReport,
  Part,
  SessionSummary,
  WireEvent,
  WireSession,
  WireTraceSpan,
} from './types.js';
import { readEventStream } from './sse.js';

/** An HTTP error answered by the server (its JSON error body), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Where an app's user's sessions live on the API. */
export interface SessionRef {
  app: string;
  user: string;
  sessionId: string;
}

/** Called with each event of a streamed run, partial chunks included. */
export type OnEvent = (event: WireEvent) => void;

/**
 * The dev UI's only way to the server: the HTTP API (`/list-apps`, sessions, `/run_sse`, resume,
 * cancel, graph), with the bearer token when one is set.
 */
export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: () => string | undefined,
  ) {}

  listApps(): Promise<string[]> {
    return this.json('GET', '/list-apps');
  }

  graph(app: string): Promise<AgentGraphNode> {
    return this.json('GET', `/apps/${enc(app)}/graph`);
  }

  listSessions(app: string, user: string): Promise<WireSession[]> {
    return this.json('GET', sessionsPath(app, user));
  }

  /** The user's sessions with a name (their first message) and the time they started. */
  sessionSummaries(app: string, user: string): Promise<SessionSummary[]> {
    return this.json('GET', `/apps/${enc(app)}/users/${enc(user)}/session_summaries`);
  }

  /** The root agent's `inputSchema` as JSON Schema, or null when it takes messages only. */
  inputSchema(app: string): Promise<Record<string, unknown> | null> {
    return this.json('GET', `/apps/${enc(app)}/input_schema`);
  }

  /** ADK's `GET /debug/trace/{event_id}`: the model call that produced the event (404 when none is kept). */
  eventTrace(eventId: string): Promise<Record<string, unknown>> {
    return this.json('GET', `/debug/trace/${enc(eventId)}`);
  }

  /** ADK's `GET /debug/trace/session/{id}`: the agent, model and tool spans of the session's runs. */
  sessionTrace(app: string, sessionId: string): Promise<WireTraceSpan[]> {
    return this.json('GET', `/debug/trace/session/${enc(sessionId)}?app=${enc(app)}`);
  }

  /** The ids of the app's eval sets (`<id>.evalset.json` in its folder). */
  evalSets(app: string): Promise<string[]> {
    return this.json('GET', `/apps/${enc(app)}/eval_sets`);
  }

  /** Runs an eval set against the app's agent; resolves with the report. */
  runEval(app: string, evalSetId: string): Promise<EvalReport> {
    return this.json('POST', `/apps/${enc(app)}/eval_sets/${enc(evalSetId)}/run_eval`, {});
  }

  getSession(ref: SessionRef): Promise<WireSession> {
    return this.json('GET', `${sessionsPath(ref.app, ref.user)}/${enc(ref.sessionId)}`);
  }

  createSession(app: string, user: string): Promise<WireSession> {
    return this.json('POST', sessionsPath(app, user), {});
  }

  async deleteSession(ref: SessionRef): Promise<void> {
    await this.request('DELETE', `${sessionsPath(ref.app, ref.user)}/${enc(ref.sessionId)}`);
  }

  /** The session's artifact names (its own and the user's `user:` ones). */
  listArtifacts(ref: SessionRef): Promise<string[]> {
    return this.json('GET', artifactsPath(ref));
  }

  artifactVersions(ref: SessionRef, name: string): Promise<number[]> {
    return this.json('GET', `${artifactsPath(ref)}/${enc(name)}/versions`);
  }

  loadArtifact(ref: SessionRef, name: string, version: number): Promise<Part> {
    return this.json('GET', `${artifactsPath(ref)}/${enc(name)}/versions/${version}`);
  }

  /**
   * `POST /run_sse` with streaming on: calls `onEvent` for every event until the run ends. The
   * message is text, or a structured `input` for an agent with an `inputSchema`.
   */
  async runSse(
    ref: SessionRef,
    message: { text: string } | { input: Record<string, unknown> },
    onEvent: OnEvent,
    signal?: AbortSignal,
  ): Promise<void> {
    const body = {
      appName: ref.app,
      userId: ref.user,
      sessionId: ref.sessionId,
      ...('text' in message
        ? { newMessage: { role: 'user', parts: [{ text: message.text }] } }
        : { input: message.input }),
      streaming: true,
    };
    const response = await this.request('POST', '/run_sse', body, signal);
    for await (const event of readEventStream(response)) onEvent(event);
  }

  /** `POST .../sessions/{id}/resume` with the answers by interrupt id; streams the rest of the run. */
  async resumeSse(
    ref: SessionRef,
    responses: Record<string, unknown>,
    onEvent: OnEvent,
    signal?: AbortSignal,
  ): Promise<void> {
    const path = `${sessionsPath(ref.app, ref.user)}/${enc(ref.sessionId)}/resume`;
    const response = await this.request('POST', path, { responses, streaming: true }, signal);
    for await (const event of readEventStream(response)) onEvent(event);
  }

  /**
   * `POST .../sessions/{id}/cancel`: stops the session's run and resolves, once the run has ended,
   * with the event it ended on as stored (its cancellation). A 404 (`NO_RUN`) means nothing was
   * running there any more.
   */
  cancelRun(ref: SessionRef): Promise<WireEvent> {
    return this.json('POST', `${sessionsPath(ref.app, ref.user)}/${enc(ref.sessionId)}/cancel`);
  }

  /** `POST .../sessions/{id}/rewind`: the session back to before the invocation; resolves with it as stored. */
  rewind(ref: SessionRef, invocationId: string): Promise<WireSession> {
    return this.json('POST', `${sessionsPath(ref.app, ref.user)}/${enc(ref.sessionId)}/rewind`, { invocationId });
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request(method, path, body);
    return (await response.json()) as T;
  }

  private async request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {};
    const token = this.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(
        0,
        'NETWORK',
        `The server did not answer ${method} ${path}: ${(error as Error).message}. Is troupe web still running?`,
      );
    }
    if (!response.ok) throw await errorOf(response, method, path);
    return response;
  }
}

async function errorOf(response: Response, method: string, path: string): Promise<ApiError> {
  let body: Partial<ErrorBody> | undefined;
  try {
    body = (await response.json()) as Partial<ErrorBody>;
  } catch {
    // Not a JSON error body (a proxy's page, say): reported with the status alone.
  }
  const code = body?.error?.code ?? `HTTP_${response.status}`;
  const message = body?.error?.message ?? `${method} ${path} answered ${response.status} ${response.statusText}.`;
  return new ApiError(response.status, code, message);
}

function sessionsPath(app: string, user: string): string {
  return `/apps/${enc(app)}/users/${enc(user)}/sessions`;
}

function artifactsPath(ref: SessionRef): string {
  return `${sessionsPath(ref.app, ref.user)}/${enc(ref.sessionId)}/artifacts`;
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}
