import type { ResponseFunctionToolCall } from 'openai/resources/responses/responses';
import { isRecord } from '../../shared/tool-arguments.js';

const WRAPPER_NAMES = new Set(['parallel', 'multi_tool_use.parallel']);
const RECIPIENT_PREFIX = 'functions.';

/** One function call as the response builder takes it. */
export interface ResponsesCall {
  id: string;
  name: string;
  args: string | Record<string, unknown>;
}

/**
 * The calls a `function_call` item stands for. Models sometimes wrap parallel calls in one call
 * of a tool nobody declared, `parallel` (or `multi_tool_use.parallel`), whose arguments list the
 * real calls as `{ tool_uses: [{ recipient_name: 'functions.<name>', parameters }] }`; those become
 * the calls they list, with ids derived from the wrapper's. Any other call is itself.
 */
export function expandParallelWrapper(
  item: Pick<ResponseFunctionToolCall, 'call_id' | 'name' | 'arguments'>,
): ResponsesCall[] {
  const itself = [{ id: item.call_id, name: item.name, args: item.arguments }];
  if (!WRAPPER_NAMES.has(item.name)) return itself;
  let parsed: unknown;
  try {
    parsed = JSON.parse(item.arguments);
  } catch {
    return itself;
  }
  const uses = isRecord(parsed) ? parsed.tool_uses : undefined;
  if (!Array.isArray(uses) || uses.length === 0) return itself;
  const calls: ResponsesCall[] = [];
  for (const [index, use] of uses.entries()) {
    const recipient = isRecord(use) ? use.recipient_name : undefined;
    if (typeof recipient !== 'string' || !recipient.startsWith(RECIPIENT_PREFIX)) return itself;
    const parameters = isRecord(use) && isRecord(use.parameters) ? use.parameters : {};
    calls.push({ id: `${item.call_id}_${index}`, name: recipient.slice(RECIPIENT_PREFIX.length), args: parameters });
  }
  return calls;
}
