import type { BaseAgent } from '../base-agent.js';

/**
 * Whether an agent running on `agentBranch` sees an event of `eventBranch` in its history:
 * the same branch, an ancestor, or a descendant created only by fan-in agents (ParallelAgent),
 * so the agent after a ParallelAgent sees what its branches said. Never a sibling branch, never
 * the inside of an AgentTool call or TeamAgent skill. Branches compare whole segments, so
 * `P.agent_1` never sees `P.agent_10`.
 */
export function isBranchVisible(eventBranch: string, agentBranch: string, fanInAgents: ReadonlySet<string>): boolean {
  if (eventBranch === agentBranch || eventBranch === '') return true;
  if (agentBranch !== '' && agentBranch.length > eventBranch.length) {
    return agentBranch.startsWith(eventBranch) && agentBranch.charCodeAt(eventBranch.length) === DOT;
  }
  let rest: string;
  if (agentBranch === '') rest = eventBranch;
  else if (eventBranch.startsWith(agentBranch) && eventBranch.charCodeAt(agentBranch.length) === DOT)
    rest = eventBranch.slice(agentBranch.length + 1);
  else return false;
  // The descendant part is a list of (creator, child) pairs; each creator must fan in.
  const segments = rest.split('.');
  if (segments.length % 2 !== 0) return false;
  for (let i = 0; i < segments.length; i += 2) {
    if (!fanInAgents.has(segments[i]!)) return false;
  }
  return true;
}

const DOT = 46;

// Per tree root; a tree's shape is fixed once built (sub-agents are frozen).
const fanInByRoot = new WeakMap<BaseAgent, ReadonlySet<string>>();

/**
 * The names of the fan-in agents (ParallelAgents) in the tree under `root`. Names are unique within
 * one tree, so a name there means one agent. Each conversation (the runner's session, an AgentTool
 * call, a TeamAgent skill) decides visibility with the set of its own tree only: an agent of another
 * tree that happens to share a name must never make a branch visible.
 */
export function fanInAgentsOf(root: BaseAgent): ReadonlySet<string> {
  let names = fanInByRoot.get(root);
  if (!names) {
    const into = new Set<string>();
    const visit = (agent: BaseAgent): void => {
      if (agent.fansIn) into.add(agent.name);
      for (const child of agent.subAgents) visit(child);
    };
    visit(root);
    names = into;
    fanInByRoot.set(root, names);
  }
  return names;
}
