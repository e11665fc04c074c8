import type { AgentGraphNode, WireEvent } from '../types.js';
import type { StateMap } from './state-replay.js';

/** A plan-execute agent's plan, as the session's state has it (`plan.steps`, `pastSteps`). */
export interface PlanProgress {
  agent: string;
  steps: { text: string; state: 'done' | 'current' | 'open' }[];
}

/** Who spoke in a group chat, in order (one entry per turn). */
export interface SpeakerOrder {
  agent: string;
  speakers: string[];
}

export interface PatternProgress {
  plans: PlanProgress[];
  chats: SpeakerOrder[];
}

/**
 * What the prebuilt patterns of `@troupe/core/patterns` are doing, from the agent tree, the events
 * and the state (SPEC §16): a PlanExecuteAgent's plan with its finished and current steps, and a
 * GroupChatAgent's speaker order. Agents are recognised by their kind in the graph (`plan_execute`,
 * `group_chat`), so subclasses of the patterns are too.
 */
export function patternProgress(
  graph: AgentGraphNode | undefined,
  events: readonly WireEvent[],
  state: StateMap,
): PatternProgress {
  const progress: PatternProgress = { plans: [], chats: [] };
  for (const node of walk(graph)) {
    if (node.type === 'plan_execute') {
      const plan = planOf(node.name, state);
      if (plan) progress.plans.push(plan);
    } else if (node.type === 'group_chat') {
      progress.chats.push({ agent: node.name, speakers: speakersOf(node, events) });
    }
  }
  return progress;
}

function planOf(agent: string, state: StateMap): PlanProgress | undefined {
  const plan = state.plan as { steps?: unknown } | undefined;
  const steps = Array.isArray(plan?.steps) ? plan.steps.map(String) : undefined;
  if (!steps || steps.length === 0) return undefined;
  // The plan holds the steps still to do; pastSteps those done, oldest first.
  const past = Array.isArray(state.pastSteps) ? state.pastSteps : [];
  const done = past.map((p) =>
    typeof p === 'object' && p !== null && 'step' in p ? String((p as { step: unknown }).step) : String(p),
  );
  const open = steps.filter((s) => !done.includes(s));
  return {
    agent,
    steps: [
      ...done.map((text) => ({ text, state: 'done' as const })),
      ...open.map((text, i) => ({ text, state: i === 0 ? ('current' as const) : ('open' as const) })),
    ],
  };
}

function speakersOf(chat: AgentGraphNode, events: readonly WireEvent[]): string[] {
  const participants = new Set(chat.children.map((c) => c.name));
  const speakers: string[] = [];
  for (const event of events) {
    if (event.partial || !participants.has(event.author)) continue;
    // A participant's event inside this chat: the chat's name right before the participant's in the path.
    const path = event.path.split('/');
    const at = path.indexOf(event.author);
    if (at < 1 || path[at - 1] !== chat.name) continue;
    // Several events of one turn (tool calls, results, the answer) are one entry; so are two turns
    // in a row of one speaker, which the events cannot tell apart.
    if (speakers[speakers.length - 1] === event.author) continue;
    speakers.push(event.author);
  }
  return speakers;
}

function* walk(node: AgentGraphNode | undefined): Generator<AgentGraphNode> {
  if (!node) return;
  yield node;
  for (const child of node.children) yield* walk(child);
  for (const tool of node.tools) yield* walk(tool.agent);
}
