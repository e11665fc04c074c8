import type { BaseAgent } from '../agents/base-agent.js';
import type { EventSink } from '../agents/event-sink.js';
import type { HistoryScope, InvocationContext } from '../agents/invocation-context.js';
import { fanInAgentsOf } from '../agents/llm/branch-visibility.js';
import { contentText, type Content } from '../events/content.js';
import { createEvent } from '../events/event.js';
import { BaseNode, type BaseNodeConfig, type NodeYield } from './base-node.js';
import type { NodeContext } from './node-context.js';

/**
 * An agent as a workflow node. The agent sees its input as the user's message (an object input
 * is its structured input), in a conversation of its own (not the chat history, as ADK's agent
 * nodes with `includeContents: 'none'`); its output is its final answer (text, or the parsed
 * `outputSchema` object). Made by `node(agent)` or by putting the agent in `edges`.
 */
export class AgentNode extends BaseNode {
  constructor(
    readonly agent: BaseAgent,
    config: Partial<BaseNodeConfig> = {},
  ) {
    super({ description: agent.description, ...config, name: config.name ?? agent.name });
  }

  /** The agent's run is the try's one item (its output): no generator around it. @internal */
  override runTry(ctx: NodeContext, input: unknown): AsyncIterable<NodeYield> | Iterable<NodeYield> {
    if (this.runImpl !== AgentNode.prototype.runImpl) return super.runTry(ctx, input);
    return [this.runAgent(ctx, input)];
  }

  protected async *runImpl(ctx: NodeContext, input: unknown): AsyncGenerator<NodeYield, void, undefined> {
    const output = await this.runAgent(ctx, input);
    if (output !== undefined) yield output;
  }

  /** Runs the agent on the node's input; resolves with its output (undefined when it gave none). */
  private async runAgent(ctx: NodeContext, input: unknown): Promise<unknown> {
    // Kept to the await: what comes before is a plain function, which the optimizing compiler
    // compiles for much less than the same code inside an async function.
    const run = this.prepareRun(ctx, input);
    await this.agent.runInto(run.ctx, run.sink);
    return run.output;
  }

  /** The agent's context (its own conversation, with the node's input as the user's message) and the sink of its events. */
  private prepareRun(ctx: NodeContext, input: unknown): AgentRun {
    const host = ctx.host;
    const base = ctx.invocationContext;
    const { userContent, structured } = agentInput(this.agent, input, base);
    const branch = host.branch;
    const scope: HistoryScope = {
      events: [createEvent({ invocationId: base.invocationId, author: 'user', branch, content: userContent })],
      fanIn: fanInAgentsOf(this.agent),
      nodeOutputs: () => nodeOutputs(base, host.path),
      templateInput:
        typeof input === 'object' && input !== null && !Array.isArray(input) && !isContent(input)
          ? (input as Record<string, unknown>)
          : undefined,
    };
    if (host.resumeFrom !== undefined) {
      const events = base.session.events;
      for (let i = host.resumeFrom; i < events.length; i++) {
        const e = events[i]!;
        if (e.invocationId === base.invocationId && (e.branch === branch || e.branch.startsWith(`${branch}.`)))
          scope.events.push(e);
      }
    }
    const run: AgentRun = {
      ctx: base.with({
        branch,
        input: structured,
        userContent,
        historyScope: scope,
        loopScope: undefined,
        resumeFrom: host.resumeFrom,
        workflowNode: { agent: this.agent, input, path: host.path },
      }),
      // The event joins the node's history as it is handed on (the agent reads it only after the
      // returned promise settles, once it is stored).
      sink: (event) => {
        const taken = host.emit(event);
        if (!event.partial) {
          scope.events.push(event);
          if (event.output !== undefined) run.output = event.output;
          // A workflow agent ends with its own event: its terminal node's output, or none (as the
          // runner reads a root workflow's), never an earlier inner node's.
          else if (event.nodeInfo !== undefined && event.author === this.agent.name && event.actions.endOfAgent)
            run.output = undefined;
        }
        return taken;
      },
      output: undefined,
    };
    return run;
  }
}

/** One run of an agent node's agent: its context, where its events go, and its output so far. */
interface AgentRun {
  readonly ctx: InvocationContext;
  readonly sink: EventSink;
  output: unknown;
}

/** The user message and structured input an agent node's input stands for. */
function agentInput(
  agent: BaseAgent,
  input: unknown,
  base: InvocationContext,
): { userContent: Content; structured: Record<string, unknown> } {
  if (input === undefined || input === null)
    return { userContent: base.userContent ?? { role: 'user', parts: [] }, structured: base.input };
  if (typeof input === 'string')
    return { userContent: { role: 'user', parts: [{ text: input }] }, structured: { request: input } };
  if (isContent(input)) {
    const content: Content = { role: 'user', parts: input.parts };
    return { userContent: content, structured: { request: contentText(content) } };
  }
  if (typeof input === 'object' && !Array.isArray(input)) {
    const structured = input as Record<string, unknown>;
    return { userContent: agent.inputMessage(structured), structured };
  }
  const text = JSON.stringify(input);
  return { userContent: { role: 'user', parts: [{ text }] }, structured: { request: text } };
}

/** True for a `Content` (`{ role?, parts: [...] }`). */
export function isContent(value: unknown): value is Content {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as Content).parts) &&
    Object.keys(value).every((k) => k === 'role' || k === 'parts')
  );
}

/** The latest output of each node of the workflow `path` belongs to, in this invocation, by node name. */
function nodeOutputs(ctx: InvocationContext, path: string): Record<string, unknown> {
  const workflow = path.slice(0, path.lastIndexOf('.'));
  const outputs: Record<string, unknown> = {};
  for (const event of ctx.session.events) {
    const info = event.nodeInfo;
    if (event.invocationId !== ctx.invocationId || event.output === undefined || !info?.path.startsWith(`${workflow}.`))
      continue;
    if (event.actions.agentState?.node !== 'ended') continue;
    const leaf = info.path.slice(workflow.length + 1);
    if (leaf.includes('.')) continue;
    outputs[leaf.split('@')[0]!] = event.output;
  }
  return outputs;
}
