import { BaseNode, type BaseNodeConfig, type NodeYield } from './base-node.js';
import type { NodeContext } from './node-context.js';

/**
 * A barrier: runs once every node with an edge into it has completed, and outputs their outputs
 * as `{ [fromNode]: output }`. (A node without it runs once per incoming trigger.)
 *
 * @example
 * const merge = new JoinNode({ name: 'merge' });
 * new Workflow({ name: 'w', edges: [['START', [weather, news], merge, summarise]] });
 */
export class JoinNode extends BaseNode {
  constructor(config: BaseNodeConfig | string) {
    super(typeof config === 'string' ? { name: config } : config);
  }

  override get requiresAllPredecessors(): boolean {
    return true;
  }

  /**
   * Its one item straight, without a generator: a join that returns at once stores one record
   * (its end) instead of a start and an end. @internal
   */
  override runTry(ctx: NodeContext, input: unknown): AsyncIterable<NodeYield> | Iterable<NodeYield> {
    // A subclass with its own runImpl runs that.
    if (this.runImpl !== JoinNode.prototype.runImpl) return super.runTry(ctx, input);
    return [input];
  }

  protected *runImpl(_ctx: NodeContext, input: unknown): Generator<NodeYield, void, undefined> {
    yield input;
  }
}
