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

  protected *runImpl(_ctx: NodeContext, input: unknown): Generator<NodeYield, void, undefined> {
    yield input;
  }
}
