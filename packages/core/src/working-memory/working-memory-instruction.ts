import type { WorkingMemoryConfig } from './working-memory-options.js';

/**
 * The paragraph added to every request's system instruction: what the record is, the record itself
 * (JSON for a schema; the filled markdown, or the bare template while nothing is stored, for a
 * template), and how to update it.
 */
export function workingMemoryInstruction(config: WorkingMemoryConfig, record: unknown, toolName: string): string {
  const whose =
    config.scope === 'user'
      ? 'what you know about the user, kept across all your conversations with them'
      : 'what you have noted in this conversation';
  let shown: string;
  let how: string;
  if (config.kind === 'schema') {
    shown = JSON.stringify(record ?? {}, null, 2);
    how = `call ${toolName} with only the fields that changed (objects are merged, a list replaces the old list, null removes a field)`;
  } else {
    shown = (typeof record === 'string' ? record : config.template).trim();
    how = `call ${toolName} with the whole updated markdown (keep the template's headings and what is still true)`;
  }
  return [
    `You have a working memory: ${whose}.`,
    '<WORKING_MEMORY>',
    shown,
    '</WORKING_MEMORY>',
    `When you learn something worth remembering (a name, a preference, a goal) or something in it is no longer true, ${how}, then go on with your answer. Do not mention the working memory unless the user asks about it.`,
  ].join('\n');
}
