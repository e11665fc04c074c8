import type { AgentCard } from '@a2a-js/sdk';
import { ConfigurationError, type BaseAgentOptions, type InvocationContext } from '@troupe/core';

/** HTTP headers sent with every request to the remote agent (e.g. `Authorization`). */
export type RemoteHeaders = Record<string, string>;

/**
 * Headers computed per request, so a token can be refreshed or taken from the run: `ctx` is the
 * invocation being served, or undefined when the card is loaded outside a run (`loadCard()`).
 */
export type RemoteHeadersProvider = (ctx: InvocationContext | undefined) => RemoteHeaders | Promise<RemoteHeaders>;

/** Options of {@link RemoteA2aAgent}. It has no sub-agents: the remote agent is its own tree. */
export interface RemoteA2aAgentOptions extends Omit<BaseAgentOptions, 'subAgents'> {
  /**
   * What the remote agent does, for transfer decisions and AgentTool declarations.
   * @default the agent card's description (once the card is loaded; see `loadCard()`)
   */
  description?: string;
  /**
   * The remote agent's card: its URL, or the card itself. A URL ending in `.json` is fetched as is;
   * any other URL gets `/.well-known/agent-card.json` appended. Cards of A2A 1.0 and 0.3 (ADK,
   * older SDKs) are both understood.
   */
  agentCard: string | URL | AgentCard;
  /**
   * Headers for every request (card, messages, task calls), or a function returning them per request.
   * @default {}
   */
  headers?: RemoteHeaders | RemoteHeadersProvider;
  /**
   * How long one request may take; for a streamed answer, the longest silence between two
   * updates. The remote task is canceled when it runs out.
   * @default 600000 (10 minutes)
   */
  timeoutMs?: number;
  /**
   * Stores the agent's output in `state[outputKey]` with its final event.
   * @default undefined (not stored)
   */
  outputKey?: string;
  /** The `fetch` to use (a proxy, a test double). @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** {@link RemoteA2aAgentOptions} with defaults applied, as `RemoteA2aAgent.options` holds them. */
export interface ResolvedRemoteOptions {
  /** A card URL (a `URL` option becomes its string), or the card given. */
  agentCard: string | AgentCard;
  /** Always a function, also for fixed headers. */
  headers: RemoteHeadersProvider;
  timeoutMs: number;
  outputKey: string | undefined;
  fetch: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 600_000;

/** Applies defaults once and rejects bad options with the option, the value and the fix. */
export function resolveRemoteOptions(options: RemoteA2aAgentOptions): ResolvedRemoteOptions {
  const name = options.name;
  const card = options.agentCard instanceof URL ? options.agentCard.href : options.agentCard;
  if (typeof card === 'string') {
    if (!URL.canParse(card) || !/^https?:$/.test(new URL(card).protocol)) {
      throw new ConfigurationError(
        `RemoteA2aAgent '${name}' has agentCard ${JSON.stringify(card)}, which is not an http(s) URL. Pass the remote agent's base URL (e.g. 'http://127.0.0.1:8001'), its card's URL, or an AgentCard object.`,
      );
    }
  } else if (typeof card !== 'object' || card === null || typeof (card as { name?: unknown }).name !== 'string') {
    throw new ConfigurationError(
      `RemoteA2aAgent '${name}' needs agentCard: a URL or an AgentCard object with a name; got ${describe(card)}.`,
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new ConfigurationError(
      `RemoteA2aAgent '${name}' has timeoutMs ${JSON.stringify(options.timeoutMs)}; use a positive whole number of milliseconds (default ${DEFAULT_TIMEOUT_MS}).`,
    );
  }
  const headers = options.headers;
  if (
    headers !== undefined &&
    typeof headers !== 'function' &&
    (typeof headers !== 'object' || headers === null || Object.values(headers).some((v) => typeof v !== 'string'))
  ) {
    throw new ConfigurationError(
      `RemoteA2aAgent '${name}' has headers ${describe(headers)}; pass an object of string values, or a function returning one.`,
    );
  }
  if (options.outputKey !== undefined && (typeof options.outputKey !== 'string' || options.outputKey === '')) {
    throw new ConfigurationError(
      `RemoteA2aAgent '${name}' has outputKey ${JSON.stringify(options.outputKey)}; use a non-empty state key, or leave it out.`,
    );
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') {
    throw new ConfigurationError(
      `RemoteA2aAgent '${name}' has no fetch: this runtime has no global fetch and none was given. Pass the fetch option.`,
    );
  }
  const fixed = headers ?? {};
  return {
    agentCard: card,
    headers: typeof fixed === 'function' ? fixed : () => fixed,
    timeoutMs,
    outputKey: options.outputKey,
    fetch: fetchImpl,
  };
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return JSON.stringify(value) ?? Object.prototype.toString.call(value);
  return `${typeof value} ${JSON.stringify(value)}`;
}
