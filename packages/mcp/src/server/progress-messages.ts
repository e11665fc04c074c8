import type { Event } from '@troupe/core';

/**
 * What one event of a run says as MCP progress messages, one per thing it does:
 * `<author>: <text>`, `<author>: called <tool>`, `<author>: <tool> returned`,
 * `<author>: asks approval for <tool>`, `<author>: asks for input: <message>`, `<author>: <custom
 * event name>`. None for the user's events, streaming chunks, compaction summaries, or records that
 * say nothing (state and progress records of workflow agents).
 */
export function progressMessages(event: Event): string[] {
  if (event.partial || event.author === 'user' || event.actions.compaction) return [];
  const who = event.author;
  if (event.customEvent) return [`${who}: ${event.customEvent.name}`];
  const interrupt = event.interrupt;
  if (interrupt) {
    return [
      interrupt.kind === 'confirmation'
        ? `${who}: asks approval for ${interrupt.toolName}`
        : `${who}: asks for input: ${interrupt.message ?? interrupt.toolName}`,
    ];
  }
  const messages: string[] = [];
  let text = '';
  for (const part of event.content?.parts ?? []) {
    if ('text' in part && !part.thought) text += part.text;
    else if ('functionCall' in part) messages.push(`${who}: called ${part.functionCall.name}`);
    else if ('functionResponse' in part) messages.push(`${who}: ${part.functionResponse.name} returned`);
  }
  if (text.trim() !== '') messages.unshift(`${who}: ${text}`);
  return messages;
}
