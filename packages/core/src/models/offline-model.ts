import type { Content, Part } from '../events/content.js';
import type { FunctionDeclaration, LlmRequest, LlmResponse } from '../models/llm-request.js';
import { BaseLlm } from './base-llm.js';

/**
 * A deterministic stand-in for a model, for demos before a provider key is configured. It is not
 * an LLM: it picks a tool or a transfer target whose name or description shares words with the
 * user's message, summarises tool results, and otherwise answers from its instruction.
 */
export class OfflineModel extends BaseLlm {
  constructor() {
    super('offline');
  }

  async *generateContentAsync(request: LlmRequest, stream = false): AsyncGenerator<LlmResponse> {
    const content = decide(request);
    const usage = { inputTokens: 0, outputTokens: 0 };
    const text = content.parts.map((p) => ('text' in p ? p.text : '')).join('');
    if (stream && text) {
      for (const word of text.split(/(?<= )/))
        yield { content: { role: 'model', parts: [{ text: word }] }, partial: true };
    }
    yield { content, usage, turnComplete: true, finishReason: 'STOP', model: 'offline' };
  }
}

const FOREIGN = /^\[[^\]]+\] (said:|called tool|tool) /;
const STOP_WORDS = new Set([
  'the',
  'and',
  'for',
  'with',
  'that',
  'this',
  'from',
  'you',
  'your',
  'are',
  'can',
  'please',
  'about',
  'into',
  'what',
  'tool',
  'agent',
  'handles',
  'provides',
]);

function decide(request: LlmRequest): Content {
  const { contents } = request;
  const last = contents[contents.length - 1];
  const results =
    last?.parts.filter((p): p is Extract<Part, { functionResponse: unknown }> => 'functionResponse' in p) ?? [];
  if (results.length > 0) {
    const summary = results
      .map((r) => `${r.functionResponse.name} returned ${brief(r.functionResponse.response)}`)
      .join('; ');
    return answer(request, `Here is what I found: ${summary}.`);
  }
  const userIndex = lastUserIndex(contents);
  const userText = userIndex < 0 ? '' : textOf(contents[userIndex]!);
  const alreadyTransferred = contents
    .slice(userIndex + 1)
    .some((c) => c.parts.some((p) => 'text' in p && p.text.includes(`called tool 'transfer_to_agent'`)));
  const choice = chooseTool(request.config.tools ?? [], userText, alreadyTransferred);
  if (choice)
    return {
      role: 'model',
      parts: [{ functionCall: { id: `offline_${contents.length}`, name: choice.name, args: choice.args } }],
    };
  return answer(request, respondFromInstruction(request.config.systemInstruction ?? '', userText));
}

function answer(request: LlmRequest, text: string): Content {
  const schema = request.config.responseSchema;
  return { role: 'model', parts: [{ text: schema ? JSON.stringify(fillSchema(schema, text)) : text }] };
}

function lastUserIndex(contents: Content[]): number {
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]!;
    if (c.role === 'user' && c.parts.some((p) => 'text' in p && !FOREIGN.test(p.text))) return i;
  }
  return -1;
}

function textOf(content: Content): string {
  return content.parts
    .map((p) => ('text' in p && !FOREIGN.test(p.text) ? p.text : ''))
    .join(' ')
    .trim();
}

function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !STOP_WORDS.has(w));
}

function overlap(query: string[], candidate: string[]): number {
  let score = 0;
  for (const q of query) {
    if (
      candidate.some(
        (c) =>
          c === q || (q.length >= 4 && c.length >= 4 && (c.startsWith(q.slice(0, 4)) || q.startsWith(c.slice(0, 4)))),
      )
    )
      score++;
  }
  return score;
}

function chooseTool(
  tools: FunctionDeclaration[],
  userText: string,
  alreadyTransferred: boolean,
): { name: string; args: Record<string, unknown> } | undefined {
  const query = words(userText);
  if (query.length === 0) return undefined;
  let best: { name: string; args: Record<string, unknown>; score: number } | undefined;
  for (const tool of tools) {
    if (tool.name === 'transfer_to_agent') {
      if (alreadyTransferred) continue;
      for (const [, name, description] of tool.description.matchAll(/'([A-Za-z_$][\w$]*)'(?::\s*([^;]*))?/g)) {
        const score = overlap(query, words(`${name} ${description ?? ''}`));
        if (score > (best?.score ?? 0)) best = { name: tool.name, args: { agent_name: name }, score };
      }
      continue;
    }
    if (tool.name === 'exit_loop') continue;
    const score = overlap(query, words(`${tool.name} ${tool.description}`));
    if (score > (best?.score ?? 0)) best = { name: tool.name, args: argsFor(tool.parameters, userText), score };
  }
  return best;
}

function argsFor(schema: Record<string, unknown> | undefined, userText: string): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const numbers = (userText.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
  const args: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(properties)) {
    const value = valueFor(prop, userText, numbers);
    if (value !== undefined) args[key] = value;
  }
  return args;
}

function valueFor(prop: Record<string, unknown>, text: string, numbers: number[]): unknown {
  if (Array.isArray(prop.enum)) return prop.enum[0];
  switch (prop.type) {
    case 'number':
    case 'integer':
      return numbers.length ? numbers.shift() : 0;
    case 'boolean':
      return true;
    case 'array': {
      // As many items as the schema requires (e.g. a plan of at least one step), each filled the same way.
      const min = typeof prop.minItems === 'number' ? Math.min(prop.minItems, 10) : 0;
      const items = (prop.items ?? {}) as Record<string, unknown>;
      return Array.from({ length: min }, () => valueFor(items, text, numbers));
    }
    case 'object':
      return fillSchema(prop, text);
    default:
      return text;
  }
}

function fillSchema(schema: Record<string, unknown>, text: string): unknown {
  if (schema.type !== 'object') return valueFor(schema, text, []);
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>))
    out[key] = valueFor(prop, text, []);
  return out;
}

function respondFromInstruction(system: string, userText: string): string {
  const own = system.split('\n\n').find((p) => !p.startsWith('You are agent')) ?? '';
  const firstSentence = own.split(/(?<=[.!?])\s/)[0]?.trim() ?? '';
  const task = firstSentence ? ` My task: ${firstSentence}` : '';
  return `(offline model, not an LLM)${task} You said: "${userText.slice(0, 200)}".`;
}

function brief(value: unknown): string {
  const json = JSON.stringify(value);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}
