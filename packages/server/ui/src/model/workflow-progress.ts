import type { WireEvent } from '../types.js';

/** What a workflow agent's progress record says, for the event list and the chat. */
export interface WorkflowProgress {
  /** `loop`, `sequential`, `parallel`, `team` or `agent` (a custom agent's own record, or an agent's end). */
  workflow: 'loop' | 'sequential' | 'parallel' | 'team' | 'agent';
  /** One line, e.g. "Loop iteration 2: step 3 done" or "Loop stopped: escalated after 2 iterations". */
  text: string;
}

/**
 * The progress an event records in `actions.agentState` (the resume protocol's records: see
 * packages/core/src/agents/progress.ts) or by ending its agent (`endOfAgent`), read by its shape:
 * the wire does not say which kind of agent wrote it. Undefined for events without either, and for
 * the runner's own records on user events (the start of an invocation, resume answers).
 */
export function workflowProgress(event: WireEvent): WorkflowProgress | undefined {
  if (event.author === 'user') return undefined;
  const state = event.actions.agentState;
  const record = state && typeof state === 'object' && !Array.isArray(state) ? state : undefined;
  const count = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
  if (record) {
    if (typeof record.stopReason === 'string' && count(record.iterations)) {
      const why = record.stopReason === 'escalated' ? 'escalated' : 'reached its maximum of iterations';
      return {
        workflow: 'loop',
        text: `Loop stopped: ${why} after ${record.iterations} iteration${record.iterations === 1 ? '' : 's'}`,
      };
    }
    if (count(record.iteration) && count(record.next))
      return { workflow: 'loop', text: `Loop iteration ${record.iteration + 1}: step ${record.next} done` };
    if (count(record.next) && Object.keys(record).length === 1)
      return { workflow: 'sequential', text: `Sequence: step ${record.next} done, step ${record.next + 1} next` };
    if (Array.isArray(record.completed))
      return { workflow: 'parallel', text: `Parallel branches finished: ${record.completed.join(', ')}` };
    if (typeof record.completed === 'string')
      return { workflow: 'parallel', text: `Parallel branch finished: ${record.completed}` };
    if (typeof record.unit === 'string') return { workflow: 'team', text: `Team: ${record.unit} finished` };
    if (typeof record.round === 'string') return { workflow: 'team', text: `Team: round ${record.round} begun` };
    if (record.finished === true) return { workflow: 'team', text: 'Team finished' };
    return { workflow: 'agent', text: `Progress recorded: ${JSON.stringify(record).slice(0, 120)}` };
  }
  if (event.actions.endOfAgent) return { workflow: 'agent', text: `${event.author} finished` };
  return undefined;
}
