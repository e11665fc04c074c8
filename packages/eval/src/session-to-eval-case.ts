import { type Content, contentText, type Event, type Session } from '@troupe/core';
import type { EvalCase, EvalTurn } from './eval-set.js';
import { EvalSetError } from './errors.js';
import { finalResponseText, toolTrajectory } from './trajectory.js';

/** Options of {@link sessionToEvalCase}. */
export interface SessionToEvalCaseOptions {
  /** The case's id. @default the session's id */
  evalId?: string;
  description?: string;
  /** The session state the case starts from (the stored session does not keep its initial state). */
  state?: Record<string, unknown>;
}

/**
 * Turns a stored session into an eval case that expects what happened: one turn per invocation
 * started by a user message, with that message, the final response (the last final text, see
 * `finalResponseText`) and the tool trajectory, nested AgentTool calls included with their agent
 * path. Throws {@link EvalSetError} for a session without user turns, or with a turn that failed or
 * asked for approval or input (an evaluation cannot answer those).
 *
 * @example
 * const session = await store.getSession({ appName: 'weather', userId: 'user', sessionId });
 * const evalCase = sessionToEvalCase(session!, { evalId: 'paris-weather' });
 */
export function sessionToEvalCase(session: Session, options: SessionToEvalCaseOptions = {}): EvalCase {
  const turns: EvalTurn[] = [];
  for (const events of invocations(session.events)) {
    const opening = events.find((e) => e.author === 'user' && e.content !== undefined);
    if (!opening) continue;
    const number = turns.length + 1;
    const failed = events.find((e) => e.errorCode !== undefined || e.errorMessage !== undefined);
    if (failed) {
      throw new EvalSetError(
        `Turn ${number} of session '${session.id}' failed (${failed.errorMessage ?? failed.errorCode}), so it is no expectation to test against. Capture a session whose turns completed.`,
      );
    }
    const paused = events.find((e) => e.interrupt !== undefined);
    if (paused) {
      throw new EvalSetError(
        `Turn ${number} of session '${session.id}' asked for ${paused.interrupt!.kind === 'input' ? 'input' : 'approval'} (tool '${paused.interrupt!.toolName}'); an evaluation cannot answer it, so the case would never pass. Capture a session without approvals.`,
      );
    }
    const answered = events.filter((e) => e.author !== 'user');
    turns.push({
      user: userMessage(opening.content!),
      response: finalResponseText(answered),
      toolCalls: toolTrajectory(answered),
    });
  }
  if (turns.length === 0) {
    throw new EvalSetError(
      `Session '${session.id}' has no user turns to make an eval case from. Run the agent in it first (e.g. troupe run <agent> --session ${session.id}).`,
    );
  }
  const evalCase: EvalCase = { id: options.evalId ?? session.id, turns };
  if (options.description !== undefined) evalCase.description = options.description;
  if (options.state !== undefined) evalCase.state = options.state;
  return evalCase;
}

/** The session's events grouped by invocation, in order of first appearance. */
function invocations(events: readonly Event[]): Event[][] {
  const groups = new Map<string, Event[]>();
  for (const event of events) {
    if (event.partial) continue;
    let group = groups.get(event.invocationId);
    if (!group) {
      group = [];
      groups.set(event.invocationId, group);
    }
    group.push(event);
  }
  return [...groups.values()];
}

/** Text-only messages become plain strings; anything else keeps its Content. */
function userMessage(content: Content): string | Content {
  return content.parts.every((part) => 'text' in part && !part.thought) ? contentText(content) : content;
}
