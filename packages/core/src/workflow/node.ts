import { BaseAgent } from '../agents/base-agent.js';
import { ConfigurationError } from '../errors.js';
import { BaseTool } from '../tools/base-tool.js';
import { AgentNode } from './agent-node.js';
import { BaseNode, isBaseNode, type BaseNodeConfig } from './base-node.js';
import { FunctionNode, type FunctionNodeHandler } from './function-node.js';
import { ToolNode } from './tool-node.js';

/** Anything a workflow takes as a node: a node, an agent, a tool or a function `(ctx, input) => …`. */
export type NodeLike = BaseNode | BaseAgent | BaseTool | FunctionNodeHandler<never, unknown>;

/** Options of {@link node}: a node's options, all optional (the name defaults to the thing's own). */
export type NodeOptions = Partial<BaseNodeConfig>;

/**
 * Makes a workflow node of a function, an agent, a tool or a node, with options (ADK's `node()`).
 * A function node is named after its function unless `name` is given.
 *
 * @example
 * const classify = node(async (ctx, text: string) => (text.includes('?') ? 'question' : 'statement'), {
 *   name: 'classify',
 *   retryConfig: { maxAttempts: 3 },
 * });
 */
export function node(nodeLike: NodeLike, options?: NodeOptions): BaseNode {
  if (options !== undefined && (typeof options !== 'object' || options === null))
    throw new ConfigurationError(
      `node()'s options must be an object such as { name: 'classify' }; got ${String(options)}.`,
    );
  if (isBaseNode(nodeLike))
    return options && Object.keys(options).length > 0 ? withOptions(nodeLike, options) : nodeLike;
  if (nodeLike instanceof BaseAgent) return new AgentNode(nodeLike, options);
  if (nodeLike instanceof BaseTool) {
    if (options?.name === undefined && !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(nodeLike.name))
      throw new ConfigurationError(
        `Tool '${nodeLike.name}' cannot name a workflow node (a node name is an identifier). Give it one: node(tool, { name: 'lookup' }).`,
      );
    return new ToolNode(nodeLike, options);
  }
  if (typeof nodeLike === 'function') {
    const name = options?.name ?? nodeLike.name;
    if (!name)
      throw new ConfigurationError(
        `A workflow node made from an anonymous function needs a name: node((ctx, input) => …, { name: 'classify' }), or use a named function.`,
      );
    return new FunctionNode(name, nodeLike as FunctionNodeHandler, { ...options });
  }
  if (nodeLike === 'START')
    throw new ConfigurationError(
      `'START' marks where edges begin and is not a node; pass a function, agent, tool or node.`,
    );
  throw new ConfigurationError(
    `node() takes a function, an agent, a tool or a workflow node; got ${describe(nodeLike)}.`,
  );
}

/** A copy of `original` with some options changed (checked as a new node's are). */
function withOptions(original: BaseNode, options: NodeOptions): BaseNode {
  const config = { ...original.baseConfig(), ...options };
  if (original instanceof FunctionNode) return new FunctionNode(config.name, original.fn, config);
  if (original instanceof AgentNode) return new AgentNode(original.agent, config);
  if (original instanceof ToolNode) return new ToolNode(original.tool, config);
  // Any other node class: the same node with the new options, checked by the base constructor.
  const checked = new (class extends BaseNode {
    protected runImpl(): never[] {
      return [];
    }
  })(config);
  const copy = Object.create(Object.getPrototypeOf(original) as object) as BaseNode;
  Object.assign(copy, original);
  for (const key of Object.keys(checked))
    (copy as unknown as Record<string, unknown>)[key] = (checked as unknown as Record<string, unknown>)[key];
  return copy;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return value.constructor?.name ?? 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
