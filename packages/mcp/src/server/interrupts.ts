import { type InterruptInfo, REQUEST_INPUT_FUNCTION_CALL_NAME } from '@troupe/core';
import {
  type ElicitRequestFormParams,
  type PrimitiveSchemaDefinition,
  PrimitiveSchemaDefinitionSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { isRecord, type JsonSchemaObject } from './schemas.js';

/** Tool arguments longer than this are cut in a prompt. */
const MAX_ARGS_LENGTH = 200;

/** What a person is asked: the approval's hint (or which tool with which arguments), or the input request's message. */
export function interruptPrompt(interrupt: InterruptInfo): string {
  if (interrupt.kind === 'confirmation') {
    const args = JSON.stringify(interrupt.args ?? {});
    return (
      interrupt.hint ??
      `Allow ${interrupt.toolName}(${args.length > MAX_ARGS_LENGTH ? `${args.slice(0, MAX_ARGS_LENGTH - 1)}…` : args})?`
    );
  }
  return interrupt.message ?? `${interrupt.toolName} needs an answer.`;
}

/**
 * A pending interrupt as a call's `structuredContent.interrupt` shows it: `{ interruptId, kind,
 * toolName?, args?, prompt, responseSchema? }`. A graph workflow's request for input has no tool of
 * its own (ADK's `adk_request_input` stands in for it), so it shows none.
 */
export function pendingInterrupt(interrupt: InterruptInfo): Record<string, unknown> {
  const ownTool = interrupt.toolName !== REQUEST_INPUT_FUNCTION_CALL_NAME;
  return {
    interruptId: interrupt.id,
    kind: interrupt.kind,
    ...(ownTool ? { toolName: interrupt.toolName, args: interrupt.args } : {}),
    prompt: interruptPrompt(interrupt),
    ...(interrupt.responseSchema ? { responseSchema: interrupt.responseSchema } : {}),
  };
}

/** The form of an approval: one required yes/no. */
export const APPROVAL_SCHEMA: FormSchema = {
  type: 'object',
  properties: { approve: { type: 'boolean' } },
  required: ['approve'],
};

/** An elicitation form's schema: a flat object of strings, numbers, booleans and enums. */
type FormSchema = ElicitRequestFormParams['requestedSchema'];

/** How an interrupt is asked as an MCP elicitation, and how the person's reply answers it. */
export interface ElicitationForm {
  message: string;
  requestedSchema: FormSchema;
  /**
   * The answer the run takes from the person's reply, or undefined when the reply answers nothing
   * (dismissed; an input request declined): the run then stays paused.
   */
  answerOf(action: 'accept' | 'decline' | 'cancel', content: Record<string, unknown> | undefined): Answer | undefined;
}

/** An answer to one interrupt, as `runner.resume` takes it. */
export interface Answer {
  value: unknown;
}

/** The key a one-field form wraps its answer in. */
const ANSWER_FIELD = 'answer';

/**
 * The elicitation that asks an interrupt: an approval as `{ approve: boolean }` (declining
 * rejects), an input request as the form of its `responseSchema` (a flat object of strings,
 * numbers, booleans and enums, or one such field wrapped as `answer`; a text field without one).
 * Undefined when its `responseSchema` cannot be a form (nested objects, arrays of objects): the
 * call then returns it pending, for the `resume` tool.
 */
export function elicitationFor(interrupt: InterruptInfo): ElicitationForm | undefined {
  const message = interruptPrompt(interrupt);
  if (interrupt.kind === 'confirmation') {
    return {
      message,
      requestedSchema: APPROVAL_SCHEMA,
      answerOf(action, content) {
        if (action === 'decline') return { value: false };
        const approve = content?.approve;
        return action === 'accept' && typeof approve === 'boolean' ? { value: approve } : undefined;
      },
    };
  }
  const schema = interrupt.responseSchema;
  if (schema === undefined) return wrapped(message, { type: 'string', title: 'Answer' });
  const form = flatForm(schema);
  if (form) {
    return {
      message,
      requestedSchema: form,
      answerOf: (action, content) => (action === 'accept' && content !== undefined ? { value: content } : undefined),
    };
  }
  const field = PrimitiveSchemaDefinitionSchema.safeParse(schema);
  return field.success ? wrapped(message, field.data) : undefined;
}

/** A one-field form whose field is the answer. */
function wrapped(message: string, field: PrimitiveSchemaDefinition): ElicitationForm {
  return {
    message,
    requestedSchema: { type: 'object', properties: { [ANSWER_FIELD]: field }, required: [ANSWER_FIELD] },
    answerOf: (action, content) =>
      action === 'accept' && content !== undefined && ANSWER_FIELD in content
        ? { value: content[ANSWER_FIELD] }
        : undefined,
  };
}

/**
 * An object schema as an elicitation form, when a form can show every property (MCP forms are
 * flat: strings, numbers, booleans, enums); undefined otherwise.
 */
function flatForm(schema: JsonSchemaObject): FormSchema | undefined {
  if (schema.type !== 'object' || !isRecord(schema.properties)) return undefined;
  const properties: FormSchema['properties'] = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const parsed = PrimitiveSchemaDefinitionSchema.safeParse(field);
    if (!parsed.success) return undefined;
    properties[name] = parsed.data;
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : undefined;
  return { type: 'object', properties, ...(required ? { required } : {}) };
}
