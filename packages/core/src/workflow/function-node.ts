import type { Event } from '../events/event.js';
import { ConfigurationError } from '../errors.js';
import { BaseNode, type BaseNodeConfig, type NodeYield } from './base-node.js';
import type { NodeContext } from './node-context.js';

/** What a function node's function may give back (once, or yielded by a generator). */
export type FunctionNodeResult<O = unknown> = O | Event | null | undefined | void;

/**
 * A function node's function (ADK's `FunctionNodeHandler`): `(ctx, input)`, returning a value (its
 * output), an event made with `createEvent({ output, route, content, stateDelta })`, a
 * `RequestInput`, a promise of one, or a (async) generator yielding several.
 */
export type FunctionNodeHandler<I = unknown, O = unknown> = (
  ctx: NodeContext,
  input: I,
) =>
  | FunctionNodeResult<O>
  | Promise<FunctionNodeResult<O>>
  | Generator<FunctionNodeResult<O>, unknown, unknown>
  | AsyncGenerator<FunctionNodeResult<O>, unknown, unknown>;

/** Options of {@link FunctionNode}: a node's options without the name. */
export type FunctionNodeConfig = Partial<Omit<BaseNodeConfig, 'name'>>;

/**
 * A node made from a function.
 *
 * @example
 * const classify = new FunctionNode('classify', (ctx, text: string) =>
 *   createEvent({ output: text, route: text.includes('?') ? 'question' : 'statement' }),
 * );
 */
export class FunctionNode<I = unknown, O = unknown> extends BaseNode {
  readonly fn: FunctionNodeHandler<I, O>;

  constructor(name: string, fn: FunctionNodeHandler<I, O>, config: FunctionNodeConfig = {}) {
    if (typeof fn !== 'function')
      throw new ConfigurationError(
        `FunctionNode '${String(name)}' needs a function (ctx, input) => output; got ${typeof fn}.`,
      );
    super({ ...config, name });
    this.fn = fn;
  }

  /**
   * A function that returns (a value, event, request or promise of one) gives the try's one item
   * straight, without a generator around it: most nodes are such functions, and the generator was
   * a large part of a small node's cost. A generator function's iterator is the try's items.
   * @internal
   */
  override runTry(ctx: NodeContext, input: unknown): AsyncIterable<NodeYield> | Iterable<NodeYield> {
    // A subclass with its own runImpl runs that.
    if (this.runImpl !== FunctionNode.prototype.runImpl) return super.runTry(ctx, input);
    const result: unknown = this.fn(ctx, input as I);
    if (isIterator(result)) return result as AsyncIterable<NodeYield> | Iterable<NodeYield>;
    return [result];
  }

  protected async *runImpl(ctx: NodeContext, input: unknown): AsyncGenerator<NodeYield, void, undefined> {
    const result: unknown = this.fn(ctx, input as I);
    if (isIterator(result)) {
      yield* result as AsyncGenerator<unknown> | Generator<unknown>;
      return;
    }
    yield await result;
  }
}

function isIterator(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { next?: unknown; [Symbol.asyncIterator]?: unknown; [Symbol.iterator]?: unknown };
  return (
    typeof v.next === 'function' &&
    (typeof v[Symbol.asyncIterator] === 'function' || typeof v[Symbol.iterator] === 'function')
  );
}
