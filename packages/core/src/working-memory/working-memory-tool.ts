import type { ZodType } from 'zod';
import type { CallbackContext } from '../agents/callback-context.js';
import type { FunctionDeclaration, LlmRequest } from '../models/llm-request.js';
import { appendInstruction } from '../tools/append-instruction.js';
import { BaseTool, isPlainObject } from '../tools/base-tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import { isZodSchema, toJsonSchema, validate, type JsonSchema, type Schema } from '../utils/schema.js';
import { mergeRecord } from './merge-record.js';
import { afterEarlierUpdates } from './turn-updates.js';
import { workingMemoryInstruction } from './working-memory-instruction.js';
import { checkWorkingMemory, type WorkingMemoryConfig } from './working-memory-options.js';

/** The name of the tool an agent with `workingMemory` offers its model. */
export const UPDATE_WORKING_MEMORY_TOOL = 'update_working_memory';

/**
 * The tool added to an LlmAgent with `workingMemory`: before each model request it puts the record
 * in the system instruction; when the model calls it, it writes the updated record to state through
 * the call's event (`actions.stateDelta`), so the update is stored, rewound and replayed like any
 * state. An update that does not fit the schema is answered with an error and changes nothing.
 */
export class WorkingMemoryTool extends BaseTool {
  /** The schema every top-level field of which is optional: a record fills up over time. */
  private partial: Schema | undefined;

  constructor(private readonly config: WorkingMemoryConfig) {
    super({
      name: UPDATE_WORKING_MEMORY_TOOL,
      description:
        config.kind === 'schema'
          ? `Updates your working memory${scopeWords(config)}. Pass in 'memory' only the fields that changed: objects are merged, a list replaces the old list, null removes a field. Answers the whole record.`
          : `Replaces your working memory${scopeWords(config)} with 'memory', the whole updated markdown record. Answers the stored record.`,
    });
  }

  override async getDeclaration(): Promise<FunctionDeclaration> {
    const memory =
      this.config.kind === 'schema'
        ? withoutRequired(await toJsonSchema(this.config.schema))
        : { type: 'string', description: 'The whole working memory as markdown, in the shape of its template.' };
    return {
      name: this.name,
      description: this.description,
      parameters: { type: 'object', properties: { memory }, required: ['memory'] },
    };
  }

  override async processRequest({
    context,
    request,
  }: {
    context: CallbackContext;
    request: LlmRequest;
  }): Promise<void> {
    appendInstruction(
      request,
      workingMemoryInstruction(this.config, context.state.get(this.config.stateKey), this.name),
    );
  }

  override async runAsync(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const { config } = this;
    const update = args.memory;
    if (config.kind === 'template') {
      if (typeof update !== 'string') {
        return {
          error: `${this.name} needs 'memory' as the whole markdown record (a string); got ${kindOf(update)}. The working memory is unchanged.`,
        };
      }
      ctx.state.set(config.stateKey, update);
      return { memory: update };
    }
    if (!isPlainObject(update)) {
      return {
        error: `${this.name} needs 'memory' as an object of the fields to change; got ${kindOf(update)}. The working memory is unchanged.`,
      };
    }
    const stored = ctx.state.get(config.stateKey);
    let refusal: string | undefined;
    const record = await afterEarlierUpdates(ctx.session.state, config.stateKey, stored, async (base) => {
      const start = base ?? (isPlainObject(stored) ? structuredClone(stored) : {});
      const checked = await validate(await this.partialSchema(), mergeRecord(start, update));
      if (checked.ok) return checked.value as Record<string, unknown>;
      refusal = checked.message;
      return undefined;
    });
    if (!record) {
      return {
        error: `The update does not fit the working memory's schema (${refusal}). The working memory is unchanged; call ${this.name} again with valid fields.`,
      };
    }
    ctx.state.set(config.stateKey, record);
    return { memory: record };
  }

  private async partialSchema(): Promise<Schema> {
    if (this.partial) return this.partial;
    const { schema } = this.config as Extract<WorkingMemoryConfig, { kind: 'schema' }>;
    // A JSON Schema is compiled once per object: keep the one copy for every later check.
    // The options check let only zod objects through, and those have `partial()`.
    this.partial = isZodSchema(schema)
      ? (schema as ZodType & { partial(): ZodType }).partial()
      : withoutRequired(schema);
    return this.partial;
  }
}

function withoutRequired(schema: JsonSchema): JsonSchema {
  const copy = { ...schema };
  delete copy.required;
  return copy;
}

function scopeWords(config: WorkingMemoryConfig): string {
  return config.scope === 'user' ? ' (what you know about the user, across conversations)' : ' (for this conversation)';
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/** Checks `LlmAgent({ workingMemory })` and makes its tool; `undefined` when the option is not set. */
export function workingMemoryTool(agentName: string, option: unknown): WorkingMemoryTool | undefined {
  const config = checkWorkingMemory(agentName, option);
  return config && new WorkingMemoryTool(config);
}
