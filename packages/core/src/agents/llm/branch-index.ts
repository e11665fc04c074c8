import type { Event } from '../../events/event.js';

interface BranchNode {
  /** Indexes (in the event list) of the events of exactly this branch, ascending. */
  readonly events: number[];
  /** The branches one segment deeper, by that segment. */
  readonly children: Map<string, BranchNode>;
}

/**
 * The events of one event list grouped by branch, as a tree of branch segments, so an agent's
 * history reads only the branches it can see (see `isBranchVisible`) instead of testing every
 * event: a fan-out of n branches costs O(visible events) per branch, not O(n × events).
 */
export class BranchIndex {
  // Made when the first event off the first event's branch arrives: until then (most
  // conversations, which have no workflow branches, and a workflow node's own history) every event
  // is on that one branch, `base`, and nothing is indexed.
  private root: BranchNode | undefined;
  private byBranch: Map<string, BranchNode> | undefined;
  private base: string | undefined;
  private indexed = 0;

  /**
   * True when an agent on `agentBranch` sees every event indexed: they are all on one branch, the
   * agent's own or one of its ancestors.
   */
  allVisibleTo(agentBranch: string): boolean {
    if (this.root) return false;
    const base = this.base;
    return (
      base === undefined ||
      base === '' ||
      agentBranch === base ||
      (agentBranch.startsWith(base) && agentBranch.charCodeAt(base.length) === DOT)
    );
  }

  /** Adds the events appended to `events` since the last call. */
  update(events: readonly Event[]): void {
    let i = this.indexed;
    if (!this.root) {
      if (this.base === undefined && i < events.length) this.base = events[i]!.branch ?? '';
      while (i < events.length && (events[i]!.branch ?? '') === this.base) i++;
      if (i === events.length) {
        this.indexed = i;
        return;
      }
      // The first event off the base branch: index everything so far, all on that branch.
      this.indexUniform(i);
    }
    for (; i < events.length; i++) this.nodeOf(events[i]!.branch ?? '').events.push(i);
    this.indexed = events.length;
  }

  /**
   * Indexes (ascending, from `from` on) of the events an agent on `agentBranch` sees: its own
   * branch, its ancestors (whole segments), and descendants made only by fan-in agents.
   */
  visibleFrom(agentBranch: string, fanIn: ReadonlySet<string>, from: number): number[] {
    let root = this.root;
    if (!root) {
      if (this.allVisibleTo(agentBranch)) {
        const all: number[] = [];
        for (let i = from; i < this.indexed; i++) all.push(i);
        return all;
      }
      // An agent off the one branch there is: the tree says what it sees.
      root = this.indexUniform(this.indexed);
    }
    const lists: number[][] = [root.events];
    let node: BranchNode | undefined = root;
    if (agentBranch !== '') {
      for (const segment of agentBranch.split('.')) {
        node = node.children.get(segment);
        if (!node) break;
        lists.push(node.events);
      }
    }
    // Below the agent's own branch: (creator, child) pairs whose creator fans in.
    if (node) collectFanIn(node, fanIn, lists);
    const visible: number[] = [];
    for (const list of lists) {
      // Each list is ascending: skip what the caller has already read.
      let start = list.length;
      while (start > 0 && list[start - 1]! >= from) start--;
      for (let i = start; i < list.length; i++) visible.push(list[i]!);
    }
    if (lists.length > 1) visible.sort((a, b) => a - b);
    return visible;
  }

  /** Makes the tree, with the first `count` events (all on the base branch) in it. */
  private indexUniform(count: number): BranchNode {
    const root = (this.root = newNode());
    this.byBranch = new Map([['', root]]);
    const node = this.nodeOf(this.base ?? '');
    for (let j = 0; j < count; j++) node.events.push(j);
    return root;
  }

  private nodeOf(branch: string): BranchNode {
    const known = this.byBranch!.get(branch);
    if (known) return known;
    let node = this.root!;
    for (const segment of branch.split('.')) {
      let child: BranchNode | undefined = node.children.get(segment);
      if (!child) node.children.set(segment, (child = newNode()));
      node = child;
    }
    this.byBranch!.set(branch, node);
    return node;
  }
}

function collectFanIn(node: BranchNode, fanIn: ReadonlySet<string>, into: number[][]): void {
  for (const [creator, made] of node.children) {
    if (!fanIn.has(creator)) continue;
    for (const child of made.children.values()) {
      into.push(child.events);
      collectFanIn(child, fanIn, into);
    }
  }
}

const DOT = '.'.charCodeAt(0);

function newNode(): BranchNode {
  return { events: [], children: new Map() };
}
