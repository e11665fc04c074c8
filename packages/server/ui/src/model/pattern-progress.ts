import { describeProgress } from '@troupe/core/progress-words';
import type { AgentGraphNode, WireEvent } from '../types.js';
import { walkGraph } from './agent-kinds.js';
import type { StateMap } from './state-replay.js';

/** A plan-execute agent's plan, as the session's state has it (`plan.steps`, `pastSteps`). */
export interface PlanProgress {
  agent: string;
  /** Done, current (the step running or next), or open (not reached; after the end, never run). */
  steps: { text: string; state: 'done' | 'current' | 'open' }[];
  /** The agent's latest progress in words ("Plan answered after 2 steps"), when it recorded any. */
  status: string | undefined;
  /** True once its final record says why it stopped: no step is current any more. */
  finished: boolean;
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
  for (const node of walkGraph(graph)) {
    if (node.type === 'plan_execute') {
      const plan = planOf(node.name, state, events);
      if (plan) progress.plans.push(plan);
    } else if (node.type === 'group_chat') {
      progress.chats.push({ agent: node.name, speakers: speakersOf(node, events) });
    }
  }
  return progress;
}

function planOf(agent: string, state: StateMap, events: readonly WireEvent[]): PlanProgress | undefined {
  const plan = state.plan as { steps?: unknown } | undefined;
  const steps = Array.isArray(plan?.steps) ? plan.steps.map(String) : [];
  // The plan holds the steps still to do; pastSteps those done, oldest first. A finished plan has
  // no steps left, and still shows what was done.
  const past = Array.isArray(state.pastSteps) ? state.pastSteps : [];
  if (steps.length === 0 && past.length === 0) return undefined;
  const done = past.map((p) =>
    typeof p === 'object' && p !== null && 'step' in p ? String((p as { step: unknown }).step) : String(p),
  );
  const words = latestWords(agent, events);
  const finished = words?.final === true;
  const open = steps.filter((s) => !done.includes(s));
  return {
    agent,
    steps: [
      ...done.map((text) => ({ text, state: 'done' as const })),
      ...open.map((text, i) => ({ text, state: i === 0 && !finished ? ('current' as const) : ('open' as const) })),
    ],
    status: words?.text,
    finished,
  };
}

/** The words of the agent's latest progress record among the events (those up to the selected one). */
function latestWords(agent: string, events: readonly WireEvent[]) {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.author !== agent || event.actions.agentState === undefined) continue;
    const words = describeProgress(event.actions.agentState, 'plan_execute');
    if (words) return words;
  }
  return undefined;
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
