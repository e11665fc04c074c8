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

const FIELD =
  /(?<!\{)\{[A-Za-z_][A-Za-z0-9_]*\.([A-Za-z_][A-Za-z0-9_]*)(\?)?\}|<[A-Za-z_][A-Za-z0-9_]*\.([A-Za-z_][A-Za-z0-9_]*) from ([A-Za-z_][A-Za-z0-9_]*)>/g;

/**
 * ADK's typed-output placeholders in the instruction of an agent a workflow node runs:
 * `{Class.field}` reads `field` of the node's input, `<Class.field from node>` reads it from that
 * node's latest output in this run (the class name documents the shape). A missing field throws
 * {@link TemplateError} unless written `{Class.field?}`.
 */
export function fillNodeFields(
  template: string,
  agentName: string,
  input: Record<string, unknown> | undefined,
  outputs: () => Record<string, unknown>,
): string {
  if (!template.includes('.')) return template;
  return template.replace(
    FIELD,
    (
      match,
      field: string | undefined,
      optional: string | undefined,
      fromField: string | undefined,
      node: string | undefined,
    ) => {
      if (fromField !== undefined) {
        const output = outputs()[node!];
        if (typeof output === 'object' && output !== null && Object.hasOwn(output, fromField))
          return stringify((output as Record<string, unknown>)[fromField]);
        throw new TemplateError(
          `Agent '${agentName}' instruction reads '${fromField}' from the output of node '${node}' (${match}), and ${output === undefined ? `'${node}' has produced no output in this run` : `its output has no '${fromField}'`}. Check the node name and its output's fields.`,
          agentName,
          `${node}.${fromField}`,
        );
      }
      if (input && Object.hasOwn(input, field!)) return stringify(input[field!]);
      if (optional) return '';
      throw new TemplateError(
        `Agent '${agentName}' instruction reads '${field}' of its input (${match}), and its input has no such field. Give the node an input with it, or write it as optional: ${match.slice(0, -1)}?}.`,
        agentName,
        field!,
      );
    },
  );
}
