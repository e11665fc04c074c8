import type { Content, Part } from '../../events/content.js';

/** The ids of the function calls a model turn asks for, in the order it asks. */
export function callIdsOf(content: Content): string[] {
  const ids: string[] = [];
  for (const part of content.parts) if ('functionCall' in part) ids.push(part.functionCall.id);
  return ids;
}

/**
 * A turn's function responses in the order of their calls, however many events they came in
 * (a resume answers some calls after the others). Parts that answer none of `callIds` keep their
 * relative order after them.
 */
export function inCallOrder(callIds: readonly string[], parts: readonly Part[]): Part[] {
  const rank = (part: Part): number => {
    const at = 'functionResponse' in part ? callIds.indexOf(part.functionResponse.id) : -1;
    return at < 0 ? callIds.length : at;
  };
  // Array.prototype.sort is stable: equal ranks keep the order they arrived in.
  return [...parts].sort((a, b) => rank(a) - rank(b));
}
