import { describeProgress, type ProgressKind } from '@troupe/core/progress-words';
import type { WireEvent } from '../types.js';

/** The kind of the agent named `author` (`loop`, `plan_execute`, ...), from the agent tree; undefined when unknown. */
export type KindOf = (author: string) => string | undefined;

/** What a workflow or pattern agent's progress record says, for the event list and the chat. */
export interface WorkflowProgress {
  /** The kind of agent that wrote it, or `agent` (a custom agent's own record, or an agent's end). */
  workflow: ProgressKind | 'agent';
  /** One line, e.g. "Loop iteration 2: step 3 done" or "Plan answered after 2 steps". */
  text: string;
}

/**
 * The progress an event records in `actions.agentState` (the resume protocol's records: see
 * packages/core/src/agents/progress.ts), in the words the CLI uses too (core's `describeProgress`,
 * bundled into the UI), or that it ended its agent (`endOfAgent`). The wire does not say which
 * kind of agent wrote a record: `kindOf` tells it from the agent tree (a loop and a plan both stop
 * on `maxIterations`). Undefined for events without either, and for the runner's own records on
 * user events (the start of an invocation, resume answers).
 */
export function workflowProgress(event: WireEvent, kindOf?: KindOf): WorkflowProgress | undefined {
  if (event.author === 'user') return undefined;
  const state = event.actions.agentState;
  const record = state && typeof state === 'object' && !Array.isArray(state) ? state : undefined;
  if (record) {
    const words = describeProgress(record, kindOf?.(event.author));
    if (words) return { workflow: words.kind, text: words.text };
    // A custom agent's own record: its JSON is all there is to show.
    return {
      workflow: 'agent',
      text: `${event.author} recorded its progress: ${JSON.stringify(record).slice(0, 120)}`,
    };
  }
  if (event.actions.endOfAgent) return { workflow: 'agent', text: `${event.author} finished` };
  return undefined;
}
