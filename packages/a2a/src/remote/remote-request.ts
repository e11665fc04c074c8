import type { Part as A2aPart } from '@a2a-js/sdk';
import { contentText, type BaseAgent, type Content, type InvocationContext } from '@troupe/core';
import { dataPart, textPart, toA2aParts } from './remote-parts.js';

/**
 * The parts of the message that asks the remote agent: what happened on the agent's branch since
 * its last exchange with the remote (earlier user turns and other agents' answers, as
 * "For context:" lines, the way ADK's RemoteA2aAgent sends them), then the request itself: the
 * user's message (or an AgentTool/TeamAgent call's input), and the structured input as data when
 * it is more than a request text. The remote keeps its own conversation (contextId), so what it
 * saw before is not sent again; another branch's events never are (history isolation).
 */
export function requestParts(ctx: InvocationContext, agent: BaseAgent, after: number): A2aPart[] {
  const parts: A2aPart[] = [];
  const events = ctx.session.events;
  for (let i = after; i < events.length; i++) {
    const event = events[i]!;
    if (event.branch !== ctx.branch || !event.content || event.errorCode !== undefined || event.partial) continue;
    // The current request is sent below; the agent's own events are the remote's words.
    if (event.author === agent.name || (event.author === 'user' && event.invocationId === ctx.invocationId)) continue;
    if (hasToolParts(event.content)) continue;
    const text = contentText(event.content).trim();
    if (!text) continue;
    parts.push(
      textPart(
        event.author === 'user'
          ? `For context: the user said: ${text}`
          : `For context: [${event.author}] said: ${text}`,
      ),
    );
  }
  const request = toA2aParts((ctx.userContent ?? agent.inputMessage(ctx.input)).parts);
  // A request without sendable parts (an empty message) still needs one: A2A messages have parts.
  parts.push(...(request.length > 0 ? request : toA2aParts(agent.inputMessage(ctx.input).parts)));
  if (parts.length === 0) parts.push(textPart(''));
  if (Object.keys(ctx.input).some((key) => key !== 'request')) parts.push(dataPart(ctx.input));
  return parts;
}

function hasToolParts(content: Content): boolean {
  return content.parts.some((part) => 'functionCall' in part || 'functionResponse' in part);
}
