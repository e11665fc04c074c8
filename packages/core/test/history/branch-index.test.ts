import { describe, expect, it } from 'vitest';
import { createEvent, type Event } from '@troupe/core';
import { BranchIndex } from '../../src/agents/llm/branch-index.js';
import { isBranchVisible } from '../../src/agents/llm/branch-visibility.js';

// The index must see exactly what the per-event rule sees, for every agent branch, read in any
// number of incremental steps.
function event(branch: string): Event {
  const e = createEvent({ content: { role: 'model', parts: [{ text: branch || 'root' }] } });
  e.branch = branch;
  return e;
}

/** A deterministic pseudo-random sequence (no flakiness, same cases every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const SEGMENTS = ['Fan', 'Seq', 'a', 'b', 'agent_1', 'agent_10', 'Team', 'x'];

function randomBranch(next: () => number): string {
  const depth = Math.floor(next() * 5);
  const parts: string[] = [];
  for (let i = 0; i < depth; i++) parts.push(SEGMENTS[Math.floor(next() * SEGMENTS.length)]!);
  return parts.join('.');
}

describe('BranchIndex', () => {
  it('finds the same events as isBranchVisible, incrementally, for random trees of branches', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const fanIn = new Set(SEGMENTS.filter(() => next() < 0.5));
      const agents = Array.from({ length: 6 }, () => randomBranch(next)).concat(['']);
      const events: Event[] = [];
      const index = new BranchIndex();
      const read = new Map(agents.map((a) => [a, [] as number[]]));
      const processed = new Map(agents.map((a) => [a, 0]));
      for (let step = 0; step < 8; step++) {
        const count = Math.floor(next() * 6);
        for (let i = 0; i < count; i++)
          events.push(event(next() < 0.3 ? agents[Math.floor(next() * agents.length)]! : randomBranch(next)));
        index.update(events);
        for (const agent of agents) {
          read.get(agent)!.push(...index.visibleFrom(agent, fanIn, processed.get(agent)!));
          processed.set(agent, events.length);
        }
      }
      for (const agent of agents) {
        const expected = events.flatMap((e, i) => (isBranchVisible(e.branch, agent, fanIn) ? [i] : []));
        expect(read.get(agent), `seed ${seed}, agent branch '${agent}'`).toEqual(expected);
      }
    }
  });

  it('keeps agent_1 and agent_10 apart, and shows a fan-out to the agent after it', () => {
    const events = ['', 'Fan.agent_1', 'Fan.agent_10', 'Fan.agent_1.Inner.x', ''].map(event);
    const index = new BranchIndex();
    index.update(events);
    const fanIn = new Set(['Fan']);
    expect(index.visibleFrom('Fan.agent_1', fanIn, 0)).toEqual([0, 1, 4]);
    expect(index.visibleFrom('', fanIn, 0)).toEqual([0, 1, 2, 4]);
    expect(index.visibleFrom('', new Set(['Fan', 'agent_1']), 0)).toEqual([0, 1, 2, 4]);
    expect(index.visibleFrom('', new Set(['Fan', 'Inner']), 0)).toEqual([0, 1, 2, 3, 4]);
  });

  it('reads events all on one branch without a tree, and agents off it see what the rule says', () => {
    const fanIn = new Set(['W', 'r1']);
    const agents = ['W.r1', 'W.r1.sub', 'W', '', 'W.r2', 'W.r10', 'W.r1x'];
    const events: Event[] = [];
    const index = new BranchIndex();
    const read = new Map(agents.map((a) => [a, [] as number[]]));
    // Two steps on one branch, then one off it: the tree is made on the way, from the same events.
    for (const branches of [['W.r1', 'W.r1'], ['W.r1'], ['W.r1.sub', 'W.r1']]) {
      const from = events.length;
      events.push(...branches.map(event));
      index.update(events);
      for (const agent of agents) read.get(agent)!.push(...index.visibleFrom(agent, fanIn, from));
    }
    for (const agent of agents) {
      const expected = events.flatMap((e, i) => (isBranchVisible(e.branch, agent, fanIn) ? [i] : []));
      expect(read.get(agent), `agent branch '${agent}'`).toEqual(expected);
    }
    expect(new BranchIndex().allVisibleTo('W.r1')).toBe(true);
    const uniform = new BranchIndex();
    uniform.update(['W.r1', 'W.r1'].map(event));
    expect(uniform.allVisibleTo('W.r1')).toBe(true);
    expect(uniform.allVisibleTo('W.r1.sub')).toBe(true);
    expect(uniform.allVisibleTo('W.r10')).toBe(false);
    expect(uniform.allVisibleTo('W')).toBe(false);
  });
});
