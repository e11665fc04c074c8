import type { AgentCard } from '@a2a-js/sdk';
import { BaseAgent, ConfigurationError, type BaseAgentOptions, type Event, type InvocationContext } from '@troupe/core';
import { connect, type RemoteConnection } from './remote-connection.js';
import { RemoteExchange } from './remote-exchange.js';
import { resolveRemoteOptions, type RemoteA2aAgentOptions, type ResolvedRemoteOptions } from './remote-options.js';
import { readProgress } from './remote-progress.js';

/**
 * An agent that lives behind an A2A server (another Troupe app, Google ADK, any A2A 1.0 or 0.3
 * agent), usable wherever a local agent is: a sub-agent, a transfer target, a workflow step, or
 * inside an `AgentTool`.
 *
 * Each turn it sends the user's request (with what the remote has not seen of the conversation)
 * through the official A2A SDK client, streaming when the card says the agent can: the remote's
 * output arrives as partial events (with `runConfig.streaming: 'sse'`), then one final event with
 * the whole text (or the remote's data as `output` when it answers with data only). A remote
 * `input-required` pauses the run with an interrupt; `runner.resume` sends the answer on the same
 * remote task. The remote task and context ids are kept in the session (progress records), so a
 * resume in another process, also after a crash mid-stream, follows the same task and stores its
 * answer once, and the next turn continues the same remote conversation. Cancelling the run
 * cancels the remote task. Failures are {@link RemoteA2aError}s naming the agent, the URL and the fix.
 *
 * @example
 * const weather = new RemoteA2aAgent({ name: 'Weather', agentCard: 'http://127.0.0.1:8001' });
 * const root = new LlmAgent({ name: 'Assistant', model, instruction: 'Help the user.', subAgents: [weather] });
 */
export class RemoteA2aAgent extends BaseAgent {
  /** The options with defaults applied. */
  readonly options: ResolvedRemoteOptions;
  private connecting: Promise<RemoteConnection> | undefined;
  private card: AgentCard | undefined;

  constructor(options: RemoteA2aAgentOptions) {
    super(baseOptions(options));
    this.options = resolveRemoteOptions(options);
    if (typeof this.options.agentCard === 'object') this.card = this.options.agentCard;
    // The card's description stands in until one is given; with a URL it is known once the card is loaded.
    const given = options.description;
    Object.defineProperty(this, 'description', {
      get: () => given ?? this.card?.description ?? '',
      enumerable: true,
      configurable: true,
    });
  }

  /** Its progress records tell whether it finished, so a resume may re-enter it safely. */
  override get resumable(): boolean {
    return true;
  }

  /**
   * Fetches the agent card (once; later calls reuse it) and returns it in A2A 1.0 shape. Call it
   * before building an `AgentTool` or a transferring LlmAgent around an agent given by URL, so
   * they see the card's description; runs load it on first use anyway.
   */
  async loadCard(): Promise<AgentCard> {
    return (await this.connection(undefined)).card;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const record = ctx.isResuming ? readProgress(ctx.lastProgress()) : undefined;
    if (record?.state === 'completed') return;
    const conn = await this.connection(ctx);
    // A record of another remote (the card's URL changed since) is not followed.
    const followed = record && record.url === conn.url ? record : undefined;
    const exchange = new RemoteExchange(
      { agent: this, outputKey: this.options.outputKey },
      ctx,
      conn,
      this.options,
      followed,
    );
    yield* followed ? exchange.resume() : exchange.start();
  }

  private connection(ctx: InvocationContext | undefined): Promise<RemoteConnection> {
    this.connecting ??= connect(this.name, this.options, ctx).then(
      (conn) => {
        this.card = conn.card;
        return conn;
      },
      (error: unknown) => {
        // A failed fetch is not remembered: the next run tries again (the server may be up by then).
        this.connecting = undefined;
        throw error;
      },
    );
    return this.connecting;
  }
}

/** The options BaseAgent knows; a RemoteA2aAgent has no sub-agents (the remote is its own tree). */
function baseOptions(options: RemoteA2aAgentOptions): BaseAgentOptions {
  // BaseAgent reports a missing options object the way it does for every agent.
  if (typeof options !== 'object' || options === null) return options;
  const { agentCard: _card, headers: _headers, timeoutMs: _timeout, outputKey: _key, fetch: _fetch, ...base } = options;
  if ('subAgents' in base && (base as BaseAgentOptions).subAgents?.length) {
    throw new ConfigurationError(
      `RemoteA2aAgent '${options.name}' got subAgents, but a remote agent is its own tree: give its sub-agents to the remote app, or put this agent under a local one.`,
    );
  }
  return base;
}
