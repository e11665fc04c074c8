import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, AGENT_CARD_PATH, type AgentCard } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import type { InvocationContext } from '@troupe/core';
import { RemoteA2aError, describeFailure } from './remote-errors.js';
import type { ResolvedRemoteOptions } from './remote-options.js';

/** A client for one remote agent, made from its card. */
export interface RemoteConnection {
  readonly client: Client;
  /** The card in A2A 1.0 shape (a 0.3 card is translated). */
  readonly card: AgentCard;
  /** Names the remote agent in errors and progress records: the card's URL, or its endpoint. */
  readonly url: string;
  /** The card says the agent streams, so answers come as `message/stream` updates. */
  readonly streaming: boolean;
}

/** Where a card URL option points: a `.json` URL as is, any other URL + the well-known path. */
export function agentCardUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith('.json')) return parsed.href;
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  return new URL(AGENT_CARD_PATH, parsed).href;
}

/** Fetches the card when given a URL, then builds an SDK client that speaks A2A 1.0 or 0.3 as the card says. */
export async function connect(
  agentName: string,
  options: ResolvedRemoteOptions,
  ctx: InvocationContext | undefined,
): Promise<RemoteConnection> {
  const legacyCompat = { enabled: true };
  const fetchImpl = options.fetch;
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ fetchImpl, legacyCompat }),
      new RestTransportFactory({ fetchImpl, legacyCompat }),
    ],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
  });
  const source = options.agentCard;
  const url =
    typeof source === 'string'
      ? agentCardUrl(source)
      : (source.supportedInterfaces?.[0]?.url ?? `card '${source.name}'`);
  const raw = typeof source === 'string' ? await fetchCard(agentName, url, options, ctx) : source;
  let client: Client;
  try {
    client = await factory.createFromAgentCard(raw);
  } catch (error) {
    throw new RemoteA2aError(
      'A2A_CARD',
      { agentName, url },
      `its agent card cannot be used: ${describeFailure(error)}. The card must list an interface with protocolBinding 'JSONRPC' or 'HTTP+JSON' (A2A 1.0 'supportedInterfaces', or 0.3 'url' and 'preferredTransport').`,
      { cause: error },
    );
  }
  const card = await client.getAgentCard();
  return { client, card, url, streaming: card.capabilities?.streaming === true };
}

async function fetchCard(
  agentName: string,
  url: string,
  options: ResolvedRemoteOptions,
  ctx: InvocationContext | undefined,
): Promise<AgentCard> {
  const signals = [AbortSignal.timeout(options.timeoutMs)];
  if (ctx) signals.push(ctx.abortSignal);
  const headers = {
    Accept: 'application/json',
    [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION,
    ...(await options.headers(ctx)),
  };
  const fix =
    "Check that the A2A server is running and that agentCard is its base URL or its card's URL (a URL ending in .json is fetched as is; any other gets /.well-known/agent-card.json appended).";
  let response: Response;
  try {
    response = await options.fetch(url, { headers, signal: AbortSignal.any(signals) });
  } catch (error) {
    ctx?.throwIfAborted();
    const text =
      error instanceof Error && error.name === 'TimeoutError'
        ? `no answer within timeoutMs (${options.timeoutMs} ms)`
        : describeFailure(error);
    throw new RemoteA2aError('A2A_CARD', { agentName, url }, `its agent card could not be fetched: ${text}. ${fix}`, {
      cause: error,
    });
  }
  if (!response.ok) {
    const auth =
      response.status === 401 || response.status === 403
        ? " The server wants credentials: pass them with RemoteA2aAgent's `headers` option."
        : '';
    throw new RemoteA2aError(
      'A2A_CARD',
      { agentName, url },
      `fetching its agent card answered HTTP ${response.status} ${response.statusText}.${auth} ${fix}`,
    );
  }
  try {
    const card: unknown = await response.json();
    if (typeof card !== 'object' || card === null || Array.isArray(card))
      throw new Error(`the body is ${JSON.stringify(card)}, not an object`);
    return card as AgentCard;
  } catch (error) {
    throw new RemoteA2aError(
      'A2A_CARD',
      { agentName, url },
      `its agent card is not a JSON object: ${describeFailure(error)}. ${fix}`,
      { cause: error },
    );
  }
}
