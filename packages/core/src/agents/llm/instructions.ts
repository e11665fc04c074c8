import { TemplateError } from '../../errors.js';

const PLACEHOLDER = /\{\{|\}\}|\{((?:(?:app|user|temp):)?[A-Za-z_][A-Za-z0-9_]*)(\?)?\}/g;

/**
 * Fills `{key}` placeholders from state (`{app:key}`, `{user:key}`, `{temp:key}` too). `{key?}`
 * becomes '' when the key is missing; `{{` and `}}` are literal braces. `lookup` sources are tried
 * in order. A missing required key throws {@link TemplateError}.
 */
export function fillTemplate(template: string, agentName: string, ...sources: Record<string, unknown>[]): string {
  if (!template.includes('{') && !template.includes('}')) return template;
  return template.replace(PLACEHOLDER, (match, key: string | undefined, optional: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    for (const source of sources) {
      if (Object.hasOwn(source, key!)) return stringify(source[key!]);
    }
    if (optional) return '';
    throw new TemplateError(
      `Agent '${agentName}' instruction needs state key '${key}', which is not set. Set it before the run (e.g. with stateDelta or an earlier agent's outputKey) or write {${key}?} to make it optional.`,
      agentName,
      key!,
    );
  });
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
