import { type BaseAgent, ConfigurationError, type Runner, type Schema } from '@troupe/core';
import { MAX_ID_LENGTH } from '@troupe/core/hosting';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { CallRefused } from './call-refused.js';
import { isRecord, jsonSchemaOf, type JsonSchemaObject } from './schemas.js';

/** The argument of every app tool that names the session to continue. */
export const SESSION_ID_ARGUMENT = 'sessionId';

const SESSION_ID_PROPERTY = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_ID_LENGTH,
  description:
    'The session to continue: the _meta.sessionId of an earlier result of this tool. Leave it out to start a new session.',
} as const;

/**
 * The tool of one app: named after it, described by its root agent, taking `{ message, sessionId? }`
 * or, when the root agent has an `inputSchema`, that schema's properties plus `sessionId`.
 */
export function appTool(name: string, runner: Runner): Tool {
  const agent = runner.agent;
  return {
    name,
    description: agent.description || `Talk to the agent '${agent.name}' (one turn per call).`,
    inputSchema: inputSchemaOf(name, runner) as Tool['inputSchema'],
  };
}

/**
 * The tool of an app that failed to load, listed so that the person setting the server up sees why
 * (its description says it); calling it answers the same failure.
 */
export function failedAppTool(name: string, error: unknown): Tool {
  return {
    name,
    description: `This app failed to load and cannot run: ${error instanceof Error ? error.message : String(error)}`,
    inputSchema: messageSchema() as Tool['inputSchema'],
  };
}

/** What one call of an app asks for: the session to continue (if any) and the turn's message or input. */
export interface AppCall {
  sessionId: string | undefined;
  turn: { newMessage: string } | { input: Record<string, unknown> };
}

/** The call's arguments, checked; a {@link CallRefused} names the argument and the fix. */
export function appCallOf(name: string, runner: Runner, args: Record<string, unknown> | undefined): AppCall {
  const given = args ?? {};
  const sessionId = sessionIdOf(given[SESSION_ID_ARGUMENT], name);
  if (runner.agent.inputSchema !== undefined) {
    const input: Record<string, unknown> = { ...given };
    delete input[SESSION_ID_ARGUMENT];
    // The runner checks the input against the agent's inputSchema, naming each failing field.
    return { sessionId, turn: { input } };
  }
  const unknown = Object.keys(given).filter((key) => key !== 'message' && key !== SESSION_ID_ARGUMENT);
  if (unknown.length > 0)
    throw new CallRefused(
      `Tool '${name}' takes 'message' and optionally 'sessionId'; it got ${unknown.map((k) => `'${k}'`).join(', ')} too. Send { "message": "<your message>" }.`,
    );
  const message = given.message;
  if (typeof message !== 'string' || message.trim() === '')
    throw new CallRefused(
      `Tool '${name}' needs 'message', the user's message as a non-empty string; got ${message === undefined ? 'none' : JSON.stringify(message)}. Send { "message": "<your message>" }.`,
    );
  return { sessionId, turn: { newMessage: message } };
}

/** A `sessionId` argument: absent, or an id of at most {@link MAX_ID_LENGTH} characters. */
export function sessionIdOf(value: unknown, tool: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH)
    throw new CallRefused(
      `Tool '${tool}' got sessionId ${describeValue(value)}; it must be the id of a session (1 to ${MAX_ID_LENGTH} characters) that an earlier result returned in _meta.sessionId, or be left out to start a new session.`,
    );
  return value;
}

/**
 * Refuses a root agent whose tool could not be made, naming the app and the fix: an `inputSchema`
 * that is not an object schema, or that has a field `sessionId`. Apps given up front are checked
 * when the server is made; apps loaded later, when they are listed.
 */
export function checkServable(name: string, agent: BaseAgent): void {
  if (agent.inputSchema !== undefined) agentInputSchema(name, agent, agent.inputSchema);
}

function inputSchemaOf(name: string, runner: Runner): JsonSchemaObject {
  const schema = runner.agent.inputSchema;
  if (schema === undefined) return messageSchema();
  const { json, properties } = agentInputSchema(name, runner.agent, schema);
  return { ...json, type: 'object', properties: { ...properties, [SESSION_ID_ARGUMENT]: SESSION_ID_PROPERTY } };
}

function agentInputSchema(
  name: string,
  agent: BaseAgent,
  schema: Schema,
): { json: JsonSchemaObject; properties: Record<string, unknown> } {
  const json = jsonSchemaOf(schema);
  const properties = json.properties;
  if ((json.type !== undefined && json.type !== 'object') || !isRecord(properties))
    throw new ConfigurationError(
      `App '${name}' cannot be served over MCP: the inputSchema of its root agent '${agent.name}' is not an object schema with properties, and an MCP tool's input is an object. Give it an object schema (z.object({...})).`,
    );
  if (Object.hasOwn(properties, SESSION_ID_ARGUMENT))
    throw new ConfigurationError(
      `App '${name}' cannot be served over MCP: the inputSchema of its root agent '${agent.name}' has a field '${SESSION_ID_ARGUMENT}', which MCP tools of Troupe apps reserve for the session to continue. Rename that field.`,
    );
  return { json, properties };
}

function messageSchema(): JsonSchemaObject {
  return {
    type: 'object',
    properties: {
      message: { type: 'string', description: "The user's message to the agent." },
      [SESSION_ID_ARGUMENT]: SESSION_ID_PROPERTY,
    },
    required: ['message'],
  };
}

/** A value as an error message shows it: short, and typed. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 80 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'a list' : 'an object';
}
