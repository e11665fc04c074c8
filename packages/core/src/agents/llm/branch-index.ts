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
  // Made when the first event off the root branch arrives: until then (most conversations, which
  // have no workflow branches) every event is visible to every agent and nothing is indexed.
  private root: BranchNode | undefined;
  private byBranch: Map<string, BranchNode> | undefined;
  private indexed = 0;

  /** False while every event is on the root branch: then every event is visible to every agent. */
  get branched(): boolean {
    return this.root !== undefined;
  }

  /** Adds the events appended to `events` since the last call. */
  update(events: readonly Event[]): void {
    let i = this.indexed;
    if (!this.root) {
      while (i < events.length && !events[i]!.branch) i++;
      if (i === events.length) {
        this.indexed = i;
        return;
      }
      // The first branched event: index everything so far, all on the root branch.
      this.root = newNode();
      for (let j = 0; j < i; j++) this.root.events.push(j);
      this.byBranch = new Map([['', this.root]]);
    }
    for (; i < events.length; i++) this.nodeOf(events[i]!.branch ?? '').events.push(i);
    this.indexed = events.length;
  }

  /**
   * Indexes (ascending, from `from` on) of the events an agent on `agentBranch` sees: its own
   * branch, its ancestors (whole segments), and descendants made only by fan-in agents.
   */
  visibleFrom(agentBranch: string, fanIn: ReadonlySet<string>, from: number): number[] {
    if (!this.root) {
      // Only root events so far: all of them are visible to every branch.
      const all: number[] = [];
      for (let i = from; i < this.indexed; i++) all.push(i);
      return all;
    }
    const lists: number[][] = [];
    let node: BranchNode | undefined = this.root;
    lists.push(node.events);
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

function newNode(): BranchNode {
  return { events: [], children: new Map() };
}
