import { Role, type Message, type Part, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import type { A2aApp } from '@troupe/a2a';

/** The official SDK's client for the app at `baseUrl`, made from its card; with a token, every request carries it. */
export async function sdkClient(baseUrl: string, token?: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers, signal: init?.signal ?? AbortSignal.timeout(30_000) });
  };
  // The card is at <baseUrl>/.well-known/agent-card.json: a trailing slash makes the SDK resolve it there.
  return clientOver(fetchImpl, `${baseUrl}/`);
}

/** The SDK's client for an app in this process, reached without a socket at the made-up address `url`. */
export function inProcessClient(app: A2aApp, url: string): Promise<Client> {
  return clientOver(async (input, init) => app.fetch(new Request(input, init)), url);
}

/** The SDK's JSON-RPC client for the card at `url`, doing every request (the card's too) with `fetchImpl`. */
function clientOver(fetchImpl: typeof fetch, url: string): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(url);
}

export function text(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' };
}

export function data(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' };
}

/** A user message with these parts, on a context and task if given. */
export function message(parts: Part[] | string, ids: { contextId?: string; taskId?: string } = {}): SendMessageRequest {
  const msg: Message = {
    messageId: crypto.randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: typeof parts === 'string' ? [text(parts)] : parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message: msg, configuration: undefined, metadata: undefined };
}

/** Every event of a stream, in order. */
export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The task a `sendMessage` answered with (this server always answers with a task). */
export function asTask(result: Message | Task): Task {
  if (!('status' in result)) throw new Error(`Expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

/** The texts of parts. */
export function textsOf(parts: readonly Part[] | undefined): string[] {
  return (parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));
}

/** The values of data parts. */
export function dataOf(parts: readonly Part[] | undefined): unknown[] {
  return (parts ?? []).flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []));
}

/** A compact line per stream event: `task:submitted`, `status:working`, `artifact:response-1+ 'Hel'`, ... */
export function describe(event: StreamResponse): string {
  const p = event.payload;
  switch (p?.$case) {
    case 'task':
      return `task:${stateName(p.value.status?.state)}`;
    case 'statusUpdate':
      return `status:${stateName(p.value.status?.state)}`;
    case 'artifactUpdate':
      return `artifact:${p.value.artifact?.artifactId}${p.value.append ? '+' : ''}${p.value.lastChunk ? '!' : ''}`;
    case 'message':
      return 'message';
    case undefined:
      return 'empty';
  }
}

const STATES = [
  'unspecified',
  'submitted',
  'working',
  'completed',
  'failed',
  'canceled',
  'input-required',
  'rejected',
  'auth-required',
];

export function stateName(state: number | undefined): string {
  return STATES[state ?? 0] ?? String(state);
}
