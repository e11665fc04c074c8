import type { Content, LlmRequest, Part } from '@troupe/core';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { normalizeContents } from '../shared/contents.js';
import { providerOptionsOf } from '../shared/request-config.js';
import { isStrictCompatible, joinInstructions, schemaInstruction, schemaName } from '../shared/schema.js';

/** How the request is shaped for one kind of OpenAI-compatible server. */
export interface ChatRequestSettings {
  /** The key of `config.providerOptions` whose fields are copied into the body. */
  provider: string;
  /** OpenAI's current field is `max_completion_tokens`; many compatible servers know only `max_tokens`. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  structuredOutput: 'native' | 'instruction';
  /** Fields added to every request body. */
  body: Record<string, unknown> | undefined;
}

/** The Chat Completions request body for a Troupe request. */
export function toChatRequest(
  request: LlmRequest,
  model: string,
  settings: ChatRequestSettings,
): ChatCompletionCreateParamsBase {
  const { config } = request;
  const schema = config.responseSchema;
  const native = schema !== undefined && settings.structuredOutput === 'native';
  const system = joinInstructions(config.systemInstruction, schema && !native ? schemaInstruction(schema) : undefined);
  const messages: ChatCompletionMessageParam[] = [];
  if (system) messages.push({ role: 'system', content: system });
  for (const content of normalizeContents(request.contents)) messages.push(...toMessages(content));

  const body: ChatCompletionCreateParamsBase = { model, messages };
  if (config.tools && config.tools.length > 0) {
    body.tools = config.tools.map((tool): ChatCompletionTool => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters ?? { type: 'object', properties: {} },
      },
    }));
  }
  if (native && schema) {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: schemaName(schema), schema, strict: isStrictCompatible(schema) },
    };
  }
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.topP !== undefined) body.top_p = config.topP;
  if (config.maxOutputTokens !== undefined) body[settings.maxTokensField] = config.maxOutputTokens;
  if (config.stopSequences !== undefined) body.stop = config.stopSequences;
  if (config.seed !== undefined) body.seed = config.seed;
  Object.assign(body, providerOptionsOf(config, settings.provider, settings.body));
  return body;
}

function toMessages(content: Content): ChatCompletionMessageParam[] {
  if (content.role === 'model') {
    const text = content.parts.map((p) => ('text' in p ? p.text : '')).join('');
    const message: ChatCompletionAssistantMessageParam = { role: 'assistant', content: text || null };
    const calls = content.parts.flatMap((p) => ('functionCall' in p ? [p.functionCall] : []));
    if (calls.length > 0) {
      message.tool_calls = calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
      }));
    }
    return text || calls.length > 0 ? [message] : [];
  }
  const messages: ChatCompletionMessageParam[] = [];
  const userParts: ChatCompletionContentPart[] = [];
  for (const part of content.parts) {
    if ('functionResponse' in part) {
      messages.push({
        role: 'tool',
        tool_call_id: part.functionResponse.id,
        content: JSON.stringify(part.functionResponse.response ?? {}),
      });
    } else {
      const converted = toContentPart(part);
      if (converted) userParts.push(converted);
    }
  }
  if (userParts.length > 0) {
    const textOnly = userParts.every((p) => p.type === 'text');
    messages.push({
      role: 'user',
      content: textOnly ? userParts.map((p) => (p.type === 'text' ? p.text : '')).join('\n') : userParts,
    });
  }
  return messages;
}

function toContentPart(part: Part): ChatCompletionContentPart | undefined {
  if ('text' in part) return part.text ? { type: 'text', text: part.text } : undefined;
  if (!('inlineData' in part)) return undefined;
  const { mimeType, data } = part.inlineData;
  if (mimeType.startsWith('image/'))
    return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
  if (mimeType === 'audio/wav' || mimeType === 'audio/mp3' || mimeType === 'audio/mpeg') {
    return { type: 'input_audio', input_audio: { data, format: mimeType === 'audio/wav' ? 'wav' : 'mp3' } };
  }
  return {
    type: 'file',
    file: { file_data: `data:${mimeType};base64,${data}`, filename: `attachment.${mimeType.split('/')[1] ?? 'bin'}` },
  };
}
