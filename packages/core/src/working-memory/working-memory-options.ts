import type { ZodType } from 'zod';
import { ConfigurationError } from '../errors.js';
import { isPlainObject } from '../tools/base-tool.js';
import { USER_PREFIX } from '../sessions/state-keys.js';
import { isZodSchema, type JsonSchema } from '../utils/schema.js';

/** Whose working memory an agent keeps: the user's (all their sessions of the app) or one session's. */
export type WorkingMemoryScope = 'user' | 'session';

/**
 * `LlmAgent({ workingMemory })`: a small record the agent sees in every request's instruction and
 * updates with the `update_working_memory` tool (Mastra's working memory). It lives in session state
 * (see {@link workingMemoryStateKey}), so it is persisted, rewound and replayed like any state.
 *
 * @example
 * new LlmAgent({
 *   name: 'assistant',
 *   model,
 *   workingMemory: { scope: 'user', schema: z.object({ name: z.string(), city: z.string() }) },
 * });
 */
export interface WorkingMemoryOptions {
  /** `'user'`: one record per user, shared by all their sessions of the app; `'session'`: one per session. */
  scope: WorkingMemoryScope;
  /**
   * The record's shape. A zod object or a JSON Schema with `type: 'object'`: the record is JSON,
   * updated field by field and validated (every top-level field is optional, as the record fills up
   * over time). A string: a markdown template the agent fills in and rewrites whole. Unset: a
   * markdown template with the user's name, preferences, goals and other facts.
   */
  schema?: ZodType | JsonSchema | string;
  /**
   * The record's name in state. Agents with the same `key` and `scope` share one record (give them
   * the same schema).
   * @default the agent's name
   */
  key?: string;
}

/** A checked {@link WorkingMemoryOptions}, with its state key and its kind of record. */
export type WorkingMemoryConfig =
  | { scope: WorkingMemoryScope; stateKey: string; kind: 'schema'; schema: ZodType | JsonSchema }
  | { scope: WorkingMemoryScope; stateKey: string; kind: 'template'; template: string };

/** The template used when `workingMemory` has no `schema`. */
export const DEFAULT_WORKING_MEMORY_TEMPLATE = `# User
- Name:
- Preferences:
- Goals:
- Other facts:
`;

const KEY = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The state key of a working memory record: `user:working_memory:<key>` for scope `'user'`,
 * `working_memory:<key>` for scope `'session'` (`key` defaults to the agent's name). Use it to seed
 * a record when a session is created (`createSession({ state: { [key]: record } })`) or to read it.
 */
export function workingMemoryStateKey(key: string, scope: WorkingMemoryScope): string {
  return `${scope === 'user' ? USER_PREFIX : ''}working_memory:${key}`;
}

/** Checks `LlmAgent({ workingMemory })`; `undefined` when the option is not set. */
export function checkWorkingMemory(agentName: string, value: unknown): WorkingMemoryConfig | undefined {
  if (value === undefined) return undefined;
  const fail = (problem: string): never => {
    throw new ConfigurationError(`Agent '${agentName}' option 'workingMemory' ${problem}`);
  };
  if (!isPlainObject(value)) {
    return fail(
      `must be an object such as { scope: 'user' }; got ${describe(value)}. Omit it for an agent without working memory.`,
    );
  }
  for (const name of Object.keys(value)) {
    if (name !== 'scope' && name !== 'schema' && name !== 'key') {
      fail(
        `has an unknown field '${name}'. Use scope, schema (a zod object, JSON Schema or markdown template) and key.`,
      );
    }
  }
  const { scope, schema, key = agentName } = value;
  if (scope !== 'user' && scope !== 'session') {
    return fail(
      `has scope ${describe(scope)}. Use 'user' (one record per user, across their sessions) or 'session' (one per session).`,
    );
  }
  if (typeof key !== 'string' || !KEY.test(key)) {
    return fail(`has key ${describe(key)}. Use letters, digits, '_', '.' or '-' (at most 64), e.g. 'profile'.`);
  }
  const stateKey = workingMemoryStateKey(key, scope);
  if (schema === undefined) return { scope, stateKey, kind: 'template', template: DEFAULT_WORKING_MEMORY_TEMPLATE };
  if (typeof schema === 'string') {
    if (schema.trim() === '') fail(`has an empty template. Write the markdown to fill in, e.g. '# User\\n- Name:'.`);
    return { scope, stateKey, kind: 'template', template: schema };
  }
  if (isZodSchema(schema)) {
    if (typeof (schema as { partial?: unknown }).partial !== 'function') {
      fail(`has a zod schema that is not an object. Use z.object({ ... }): the record is a set of named fields.`);
    }
    return { scope, stateKey, kind: 'schema', schema };
  }
  if (isPlainObject(schema)) {
    if (schema.type !== 'object') {
      fail(
        `has a JSON Schema whose type is ${describe(schema.type)}. Use { type: 'object', properties: { ... } }: the record is a set of named fields.`,
      );
    }
    return { scope, stateKey, kind: 'schema', schema };
  }
  return fail(
    `has schema ${describe(schema)}. Use a zod object, a JSON Schema object with type 'object', or a markdown template string.`,
  );
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return value === undefined ? 'undefined' : `${typeof value} ${JSON.stringify(value)}`;
}
