import type { ContentBlockParam, MessageParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { CallCache } from '../shared/context-cache.js';
import type { MessagesBody } from './request.js';

type CacheControl = { type: 'ephemeral'; ttl?: '5m' | '1h' };

/**
 * Marks a Messages request for Anthropic's prompt cache, which caches the prompt in the order
 * tools, system, messages up to each `cache_control` breakpoint (at most 4 per request):
 * 1. the tool list (its last tool), 2. the system prompt, 3. the end of the earlier turns (the
 * last message before the current user turn), which the previous turn's call wrote, 4. the end of
 * the request, which the next call of the same agent reads (Anthropic looks back up to 20 blocks
 * from a breakpoint for an earlier write).
 *
 * The body's fields are put in that order too, so the bytes of the cached prefix come first and
 * equal from turn to turn; without caching nothing here runs and the body is as before.
 */
export function withCacheBreakpoints(body: MessagesBody, cache: CallCache): MessagesBody {
  const control: CacheControl = cache.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const { model, max_tokens, tools, system, messages, ...rest } = body;
  // Rebuilt in cache order: tools, system, messages, then the rest (sampling, output format).
  const marked = { model, max_tokens } as MessagesBody;
  if (tools && tools.length > 0) {
    const last = tools.length - 1;
    marked.tools = tools.map((tool, i) => (i === last ? { ...tool, cache_control: control } : tool));
  }
  if (typeof system === 'string' && system !== '') {
    marked.system = [{ type: 'text', text: system, cache_control: control }];
  } else if (Array.isArray(system) && system.length > 0) {
    const last = system.length - 1;
    marked.system = system.map((block, i): TextBlockParam =>
      i === last ? { ...block, cache_control: control } : block,
    );
  }
  marked.messages = markMessages(messages, control);
  return Object.assign(marked, rest);
}

function markMessages(messages: MessageParam[], control: CacheControl): MessageParam[] {
  const marks = new Set<number>();
  if (messages.length > 0) marks.add(messages.length - 1);
  const currentTurn = lastUserTurn(messages);
  if (currentTurn > 0) marks.add(currentTurn - 1);
  return messages.map((message, i) => (marks.has(i) ? markLastBlock(message, control) : message));
}

/** Where the current user turn starts: the last user message that is not only tool results. */
function lastUserTurn(messages: readonly MessageParam[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const { role, content } = messages[i]!;
    if (role !== 'user') continue;
    if (typeof content === 'string' || content.some((block) => block.type !== 'tool_result')) return i;
  }
  return -1;
}

function markLastBlock(message: MessageParam, control: CacheControl): MessageParam {
  const blocks: ContentBlockParam[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
  // Thinking blocks cannot carry a breakpoint; the block after them (a tool use) always can.
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    blocks[i] = { ...block, cache_control: control };
    return { ...message, content: blocks } as MessageParam;
  }
  return message;
}
