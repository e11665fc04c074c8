import type { Content, FunctionResponsePart, Part } from '@troupe/core';

/**
 * The conversation in the shape every provider accepts: consecutive turns of one role merged
 * into one (results of several tool calls may arrive in several user contents), function
 * responses first in their user turn (OpenAI's tool messages and Anthropic's tool_result blocks
 * must come right after the calls), and thought parts dropped (providers reject or ignore them).
 */
export function normalizeContents(contents: readonly Content[]): Content[] {
  const out: Content[] = [];
  for (const content of contents) {
    const parts = content.parts.filter((p) => !('text' in p && p.thought));
    if (parts.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === content.role) last.parts.push(...parts);
    else out.push({ role: content.role, parts: [...parts] });
  }
  for (const content of out) {
    if (content.role !== 'user') continue;
    const responses = content.parts.filter(isFunctionResponse);
    if (responses.length > 0 && responses.length < content.parts.length)
      content.parts = [...responses, ...content.parts.filter((p) => !isFunctionResponse(p))];
  }
  return out;
}

export function isFunctionResponse(part: Part): part is FunctionResponsePart {
  return 'functionResponse' in part;
}

/** A part's extra provider field (e.g. `thoughtSignature`), which the core Part type does not name. */
export function extraField(part: Part, name: string): unknown {
  return (part as unknown as Record<string, unknown>)[name];
}
