import type { Content, LlmRequest, Part } from '@troupe/core';
import type {
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { extraField, normalizeContents } from '../shared/contents.js';
import { providerOptionsOf } from '../shared/request-config.js';
import { closeObjects, joinInstructions, schemaInstruction } from '../shared/schema.js';
import { isRecord } from '../shared/tool-arguments.js';

/** Where the thinking blocks of a turn with tool calls are kept (on its first function call part). */
export const THINKING_FIELD = 'anthropicThinking';

export interface AnthropicRequestSettings {
  maxTokens: number;
  structuredOutput: 'native' | 'instruction';
  body: Record<string, unknown> | undefined;
}

/** The request body; sampling fields are not in the SDK's types any more, but the API takes them for the models that support them. */
export type MessagesBody = MessageCreateParamsBase & { temperature?: number; top_p?: number; top_k?: number };

/** The Messages API request body for a Troupe request. */
export function toMessagesRequest(
  request: LlmRequest,
  model: string,
  settings: AnthropicRequestSettings,
): MessagesBody {
  const { config } = request;
  const schema = config.responseSchema;
  const native = schema !== undefined && settings.structuredOutput === 'native';
  const system = joinInstructions(config.systemInstruction, schema && !native ? schemaInstruction(schema) : undefined);
  const messages = normalizeContents(request.contents).flatMap(toMessage);
  // The Messages API wants the conversation to open with the user.
  if (messages[0]?.role === 'assistant')
    messages.unshift({ role: 'user', content: '(The conversation so far follows.)' });

  const body: MessagesBody = { model, max_tokens: config.maxOutputTokens ?? settings.maxTokens, messages };
  if (system) body.system = system;
  if (config.tools && config.tools.length > 0) {
    body.tools = config.tools.map((tool): Tool => ({
      name: tool.name,
      description: tool.description,
      input_schema: { type: 'object', ...(tool.parameters ?? { properties: {} }) },
    }));
  }
  if (native && schema) body.output_config = { format: { type: 'json_schema', schema: closeObjects(schema) } };
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.topP !== undefined) body.top_p = config.topP;
  if (config.topK !== undefined) body.top_k = config.topK;
  if (config.stopSequences !== undefined) body.stop_sequences = config.stopSequences;
  Object.assign(body, providerOptionsOf(config, 'anthropic', settings.body));
  return body;
}

function toMessage(content: Content): MessageParam[] {
  const blocks = content.parts.flatMap((part) => toBlocks(part, content.role));
  if (blocks.length === 0) return [];
  return [{ role: content.role === 'model' ? 'assistant' : 'user', content: blocks }];
}

function toBlocks(part: Part, role: Content['role']): ContentBlockParam[] {
  if ('text' in part) return [...thinkingOf(part), ...(part.text ? [{ type: 'text' as const, text: part.text }] : [])];
  if ('functionCall' in part) {
    const { id, name, args } = part.functionCall;
    return [...thinkingOf(part), { type: 'tool_use', id: safeId(id), name, input: args ?? {} }];
  }
  if ('functionResponse' in part) {
    const { id, response } = part.functionResponse;
    const failed = isRecord(response) && Object.keys(response).length === 1 && 'error' in response;
    return [
      {
        type: 'tool_result',
        tool_use_id: safeId(id),
        content: JSON.stringify(response ?? {}),
        ...(failed ? { is_error: true } : {}),
      },
    ];
  }
  if (role !== 'user') return [];
  const { mimeType, data } = part.inlineData;
  if (mimeType === 'image/jpeg' || mimeType === 'image/png' || mimeType === 'image/gif' || mimeType === 'image/webp') {
    return [{ type: 'image', source: { type: 'base64', media_type: mimeType, data } }];
  }
  if (mimeType === 'application/pdf')
    return [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } }];
  if (mimeType.startsWith('text/'))
    return [
      {
        type: 'document',
        source: { type: 'text', media_type: 'text/plain', data: Buffer.from(data, 'base64').toString('utf8') },
      },
    ];
  return [];
}

/** The thinking blocks a model turn carries (on its first call, or on its text without calls), to send back as they came. */
function thinkingOf(part: Part): ContentBlockParam[] {
  const thinking = extraField(part, THINKING_FIELD);
  return Array.isArray(thinking) ? (thinking.filter(isRecord) as unknown as ContentBlockParam[]) : [];
}

/** Tool-use ids must match `^[a-zA-Z0-9_-]+$`; ids another provider made are mapped the same way for call and result. */
function safeId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call';
}
