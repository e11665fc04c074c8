import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Content, Part } from '@troupe/core';
import type { EvalCase, EvalSet, EvalTurn, ToolCallExpectation } from './eval-set.js';
import { EvalSetError } from './errors.js';

/** The two file formats an eval set can be read from. */
export type EvalSetFormat = 'troupe' | 'adk';

type Json = Record<string, unknown>;

/** Where a value came from, for error messages: the file and the JSON path. */
class At {
  constructor(
    readonly source: string,
    readonly path: string,
  ) {}

  child(key: string | number): At {
    return new At(
      this.source,
      typeof key === 'number' ? `${this.path}[${key}]` : this.path ? `${this.path}.${key}` : key,
    );
  }

  fail(problem: string, fix: string): never {
    throw new EvalSetError(`${this.source}: ${this.path || 'the top level'} ${problem}. ${fix}`);
  }
}

/**
 * Reads an eval set file (JSON): the Troupe format (`{ id, cases: [{ id, turns: [...] }] }`) or
 * ADK's EvalSet (`{ eval_set_id, eval_cases: [{ eval_id, conversation: [...] }] }`, snake_case or
 * camelCase). Throws {@link EvalSetError} naming the file and field.
 */
export async function loadEvalSet(path: string): Promise<EvalSet> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new EvalSetError(`Cannot read eval set file '${path}': ${(error as Error).message}. Check the path.`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new EvalSetError(`Eval set file '${path}' is not valid JSON: ${(error as Error).message}.`, { cause: error });
  }
  return parseEvalSet(json, { source: path });
}

/** Which format a parsed JSON value is in, or undefined for neither. */
export function detectEvalSetFormat(json: unknown): EvalSetFormat | undefined {
  if (!isObject(json)) return undefined;
  if ('eval_cases' in json || 'evalCases' in json) return 'adk';
  if ('cases' in json) return 'troupe';
  return undefined;
}

/**
 * Turns a parsed eval set (either format) into an {@link EvalSet}, checking every field.
 * `source` names the file in error messages; its name (without `.json`/`.evalset.json`) is the
 * set's id when the file has none.
 */
export function parseEvalSet(json: unknown, options: { source?: string } = {}): EvalSet {
  const at: At = new At(options.source ?? 'eval set', '');
  const format = detectEvalSetFormat(json);
  if (Array.isArray(json)) {
    at.fail(
      "is an array (ADK's older *.test.json format of single turns)",
      'Wrap the turns in an eval set: { "id": "my-set", "cases": [{ "id": "case-1", "turns": [{ "user": "...", "response": "..." }] }] }, or use an ADK *.evalset.json file.',
    );
  }
  if (!isObject(json) || format === undefined) {
    at.fail(
      'is not an eval set: it needs "cases" (Troupe format) or "eval_cases" (ADK format)',
      'See docs/eval.md for both formats.',
    );
  }
  const fallbackId = options.source ? basename(options.source).replace(/(\.evalset|\.test)?\.json$/i, '') : 'eval_set';
  return format === 'adk' ? parseAdkSet(json, at, fallbackId) : parseTroupeSet(json, at, fallbackId);
}

function parseTroupeSet(json: Json, at: At, fallbackId: string): EvalSet {
  const cases = array(json.cases, at.child('cases')).map((item, i) =>
    parseTroupeCase(item, at.child('cases').child(i)),
  );
  const set: EvalSet = { id: optionalString(json.id, at.child('id')) ?? fallbackId, cases };
  copyText(json, set, at, 'name', 'description');
  checkUniqueIds(cases, at.child('cases'));
  return set;
}

function parseTroupeCase(value: unknown, at: At): EvalCase {
  const json = object(value, at);
  const id = requiredString(json.id, at.child('id'), 'Give every case a unique "id".');
  const turns = array(json.turns, at.child('turns'));
  if (turns.length === 0) at.child('turns').fail('is empty', 'Give the case at least one turn: { "user": "..." }.');
  const evalCase: EvalCase = { id, turns: turns.map((turn, i) => parseTroupeTurn(turn, at.child('turns').child(i))) };
  copyText(json, evalCase, at, 'description');
  const state = field(json, 'state');
  if (state !== undefined) evalCase.state = object(state, at.child('state'));
  const userId = optionalString(field(json, 'userId', 'user_id'), at.child('userId'));
  if (userId !== undefined) evalCase.userId = userId;
  return evalCase;
}

function parseTroupeTurn(value: unknown, at: At): EvalTurn {
  const json = object(value, at);
  const user = json.user;
  const turn: EvalTurn = {
    user:
      typeof user === 'string'
        ? user
        : isObject(user)
          ? content(user, at.child('user'), 'user')
          : at.child('user').fail('is missing', 'Give the user message as text: "user": "Hello".'),
  };
  const response = optionalString(json.response, at.child('response'));
  if (response !== undefined) turn.response = response;
  const toolCalls = field(json, 'toolCalls', 'tool_calls');
  if (toolCalls !== undefined) {
    const callsAt = at.child('toolCalls');
    turn.toolCalls = array(toolCalls, callsAt).map((call, i) => toolCall(call, callsAt.child(i)));
  }
  return turn;
}

function parseAdkSet(json: Json, at: At, fallbackId: string): EvalSet {
  const casesAt = at.child('eval_cases');
  const cases = array(field(json, 'evalCases', 'eval_cases'), casesAt).map((item, i) =>
    parseAdkCase(item, casesAt.child(i)),
  );
  const set: EvalSet = {
    id: optionalString(field(json, 'evalSetId', 'eval_set_id'), at.child('eval_set_id')) ?? fallbackId,
    cases,
  };
  copyText(json, set, at, 'name', 'description');
  checkUniqueIds(cases, casesAt);
  return set;
}

function parseAdkCase(value: unknown, at: At): EvalCase {
  const json = object(value, at);
  const id = requiredString(
    field(json, 'evalId', 'eval_id'),
    at.child('eval_id'),
    'Give every eval case a unique "eval_id".',
  );
  const conversation = field(json, 'conversation');
  if (conversation === undefined && field(json, 'conversationScenario', 'conversation_scenario') !== undefined) {
    at.fail(
      'has a conversation_scenario (a simulated user)',
      'Troupe evaluates static conversations only: give the case a "conversation" of invocations.',
    );
  }
  const turnsAt = at.child('conversation');
  const turns = array(conversation, turnsAt);
  if (turns.length === 0) turnsAt.fail('is empty', 'Give the case at least one invocation with "user_content".');
  const evalCase: EvalCase = { id, turns: turns.map((turn, i) => parseAdkInvocation(turn, turnsAt.child(i))) };
  const input = field(json, 'sessionInput', 'session_input');
  if (input !== undefined) {
    const inputAt = at.child('session_input');
    const session = object(input, inputAt);
    const state = field(session, 'state');
    if (state !== undefined) evalCase.state = object(state, inputAt.child('state'));
    const userId = optionalString(field(session, 'userId', 'user_id'), inputAt.child('user_id'));
    if (userId !== undefined) evalCase.userId = userId;
  }
  return evalCase;
}

function parseAdkInvocation(value: unknown, at: At): EvalTurn {
  const json = object(value, at);
  const userAt = at.child('user_content');
  const user = field(json, 'userContent', 'user_content');
  if (user === undefined)
    userAt.fail('is missing', 'Give the user message as a Content: { "role": "user", "parts": [{ "text": "..." }] }.');
  const turn: EvalTurn = { user: content(object(user, userAt), userAt, 'user') };
  const final = field(json, 'finalResponse', 'final_response');
  if (final !== undefined && final !== null)
    turn.response = adkText(content(object(final, at.child('final_response')), at.child('final_response'), 'model'));
  // As in ADK, an invocation without intermediate data expects no tool calls.
  turn.toolCalls = [];
  const data = field(json, 'intermediateData', 'intermediate_data');
  if (data === undefined || data === null) return turn;
  const dataAt = at.child('intermediate_data');
  const intermediate = object(data, dataAt);
  const uses = field(intermediate, 'toolUses', 'tool_uses');
  if (uses !== undefined)
    turn.toolCalls.push(
      ...array(uses, dataAt.child('tool_uses')).map((call, i) => toolCall(call, dataAt.child('tool_uses').child(i))),
    );
  const events = field(intermediate, 'invocationEvents', 'invocation_events');
  if (events !== undefined) {
    const eventsAt = dataAt.child('invocation_events');
    array(events, eventsAt).forEach((event, i) => {
      const eventAt = eventsAt.child(i);
      const record = object(event, eventAt);
      const author = optionalString(record.author, eventAt.child('author'));
      const parts =
        isObject(record.content) && Array.isArray(record.content.parts) ? (record.content.parts as unknown[]) : [];
      parts.forEach((part, j) => {
        const call = isObject(part) ? field(part, 'functionCall', 'function_call') : undefined;
        if (call === undefined || call === null) return;
        const expectation = toolCall(call, eventAt.child('content').child('parts').child(j).child('function_call'));
        turn.toolCalls!.push(author !== undefined ? { ...expectation, agent: author } : expectation);
      });
    });
  }
  return turn;
}

function toolCall(value: unknown, at: At): ToolCallExpectation {
  const json = object(value, at);
  const call: ToolCallExpectation = {
    name: requiredString(
      json.name,
      at.child('name'),
      'Give the tool\'s name: { "name": "get_weather", "args": { "city": "Paris" } }.',
    ),
  };
  const args = json.args;
  if (args !== undefined && args !== null) call.args = object(args, at.child('args'));
  const agent = optionalString(json.agent, at.child('agent'));
  if (agent !== undefined) call.agent = agent;
  return call;
}

/** A Content as ADK writes it (snake_case or camelCase parts), in Troupe's shape. */
function content(json: Json, at: At, defaultRole: 'user' | 'model'): Content {
  const partsAt = at.child('parts');
  const parts = array(json.parts, partsAt).map((part, i): Part => {
    const partAt = partsAt.child(i);
    const record = object(part, partAt);
    if (typeof record.text === 'string')
      return record.thought === true ? { text: record.text, thought: true } : { text: record.text };
    const call = field(record, 'functionCall', 'function_call');
    if (isObject(call))
      return {
        functionCall: {
          id: String(call.id ?? ''),
          name: String(call.name),
          args: isObject(call.args) ? call.args : {},
        },
      };
    const response = field(record, 'functionResponse', 'function_response');
    if (isObject(response))
      return {
        functionResponse: {
          id: String(response.id ?? ''),
          name: String(response.name),
          response: isObject(response.response) ? response.response : {},
        },
      };
    const inline = field(record, 'inlineData', 'inline_data');
    if (isObject(inline) && typeof inline.data === 'string')
      return {
        inlineData: {
          mimeType: String(field(inline, 'mimeType', 'mime_type') ?? 'application/octet-stream'),
          data: inline.data,
        },
      };
    return partAt.fail('is not a text, function call, function response or inline data part', 'Give it "text".');
  });
  const role = json.role === 'user' || json.role === 'model' ? json.role : defaultRole;
  return { role, parts };
}

/** ADK joins the text parts of a final response with newlines. */
function adkText(value: Content): string {
  return value.parts
    .filter((part): part is { text: string } => 'text' in part && !part.thought)
    .map((part) => part.text)
    .join('\n');
}

function checkUniqueIds(cases: readonly EvalCase[], at: At): void {
  if (cases.length === 0) at.fail('is empty', 'Give the eval set at least one case.');
  const seen = new Set<string>();
  for (const evalCase of cases) {
    if (seen.has(evalCase.id)) at.fail(`has two cases with id '${evalCase.id}'`, 'Give every case its own id.');
    seen.add(evalCase.id);
  }
}

function copyText<T extends object>(json: Json, into: T, at: At, ...keys: ('name' | 'description')[]): void {
  for (const key of keys) {
    const value = optionalString(json[key], at.child(key));
    if (value !== undefined) (into as Record<string, unknown>)[key] = value;
  }
}

/** The value under a camelCase key or its snake_case spelling. */
function field(json: Json, camel: string, snake?: string): unknown {
  return json[camel] !== undefined ? json[camel] : snake !== undefined ? json[snake] : undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function object(value: unknown, at: At): Json {
  if (!isObject(value)) at.fail(`must be an object; got ${describe(value)}`, 'Fix the value.');
  return value;
}

function array(value: unknown, at: At): unknown[] {
  if (!Array.isArray(value)) at.fail(`must be an array; got ${describe(value)}`, 'Fix the value.');
  return value;
}

function requiredString(value: unknown, at: At, fix: string): string {
  if (typeof value !== 'string' || value.length === 0)
    at.fail(`must be a non-empty string; got ${describe(value)}`, fix);
  return value;
}

function optionalString(value: unknown, at: At): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') at.fail(`must be a string; got ${describe(value)}`, 'Fix the value.');
  return value;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
