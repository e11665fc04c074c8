import type { Event } from '../../events/event.js';
import { createEvent } from '../../events/event.js';
import type { BaseAgent } from '../base-agent.js';
import type { HistoryScope, InvocationContext } from '../invocation-context.js';
import { fanInAgentsOf } from '../llm/branch-visibility.js';

/** How a skill run ended. */
export interface UnitResult {
  /** The skill's output as an object: non-objects become `{ [outputKey ?? name]: output }`. */
  output: Record<string, unknown>;
  paused: boolean;
}

/**
 * Runs one skill (or the reviewer) on `input` as its own task: on `branch`, seeing only that input
 * (as its user message, and first in line for `{key}` in its instruction), never the chat history.
 * With `resumeFrom`, the unit's earlier events are put back into its conversation and it resumes.
 */
export async function* runUnit(
  teamCtx: InvocationContext,
  agent: BaseAgent,
  input: Record<string, unknown>,
  branch: string,
  resumeFrom: number | undefined,
): AsyncGenerator<Event, UnitResult, undefined> {
  const userContent = agent.inputMessage(input);
  const scope: HistoryScope = {
    events: [createEvent({ invocationId: teamCtx.invocationId, author: 'user', branch, content: userContent })],
    templateInput: input,
    fanIn: fanInAgentsOf(agent),
  };
  if (resumeFrom !== undefined) {
    const events = teamCtx.session.events;
    for (let i = resumeFrom; i < events.length; i++) {
      const e = events[i]!;
      if (e.invocationId === teamCtx.invocationId && (e.branch === branch || e.branch.startsWith(`${branch}.`)))
        scope.events.push(e);
    }
  }
  const ctx = teamCtx.with({ branch, input, userContent, historyScope: scope, loopScope: undefined, resumeFrom });
  let output: unknown;
  let paused = false;
  for await (const event of agent.runAsync(ctx)) {
    yield event;
    if (event.partial) continue;
    scope.events.push(event);
    if (event.output !== undefined) output = event.output;
    if (event.interrupt) paused = true;
  }
  return { output: asObject(agent, output), paused };
}

/** A skill's output as an object. */
export function asObject(agent: BaseAgent, output: unknown): Record<string, unknown> {
  if (typeof output === 'object' && output !== null && !Array.isArray(output)) return output as Record<string, unknown>;
  return { [outputKeyOf(agent)]: output };
}

/** The key a skill's text output goes under: its outputKey, else its name. */
export function outputKeyOf(agent: BaseAgent): string {
  const key = (agent as { outputKey?: unknown }).outputKey;
  return typeof key === 'string' ? key : agent.name;
}
