import type { Content, LlmRequest, Part } from '@troupe/core';
import type {
  JSONValue,
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { extraField, normalizeContents } from '../shared/contents.js';
import { isRecord } from '../shared/tool-arguments.js';

/** Where an AI SDK tool call's providerMetadata is kept (Gemini's thought signature travels there). */
export const PROVIDER_METADATA_FIELD = 'providerMetadata';

/** The AI SDK call options (LanguageModelV3 shape; V2 reads the same fields) for a Troupe request. */
export function toCallOptions(
  request: LlmRequest,
  defaults: SharedV3ProviderOptions | undefined,
): LanguageModelV3CallOptions {
  const { config } = request;
  const prompt: LanguageModelV3Message[] = [];
  if (config.systemInstruction) prompt.push({ role: 'system', content: config.systemInstruction });
  for (const content of normalizeContents(request.contents)) prompt.push(...toMessages(content));
  const options: LanguageModelV3CallOptions = { prompt };
  if (config.tools && config.tools.length > 0) {
    options.tools = config.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      inputSchema: tool.parameters ?? { type: 'object', properties: {} },
    }));
    options.toolChoice = { type: 'auto' };
  }
  if (config.responseSchema) options.responseFormat = { type: 'json', schema: config.responseSchema, name: 'response' };
  if (config.temperature !== undefined) options.temperature = config.temperature;
  if (config.topP !== undefined) options.topP = config.topP;
  if (config.topK !== undefined) options.topK = config.topK;
  if (config.maxOutputTokens !== undefined) options.maxOutputTokens = config.maxOutputTokens;
  if (config.stopSequences !== undefined) options.stopSequences = config.stopSequences;
  if (config.seed !== undefined) options.seed = config.seed;
  // config.providerOptions has the AI SDK's own shape: { [provider]: { ...fields } }.
  const perRequest = isRecord(config.providerOptions) ? (config.providerOptions as SharedV3ProviderOptions) : undefined;
  if (defaults || perRequest) options.providerOptions = mergeProviderOptions(defaults, perRequest);
  return options;
}

function mergeProviderOptions(
  a: SharedV3ProviderOptions | undefined,
  b: SharedV3ProviderOptions | undefined,
): SharedV3ProviderOptions {
  const out: SharedV3ProviderOptions = { ...a };
  for (const [provider, fields] of Object.entries(b ?? {})) out[provider] = { ...out[provider], ...fields };
  return out;
}

function toMessages(content: Content): LanguageModelV3Message[] {
  if (content.role === 'model') {
    const parts = content.parts.flatMap((part): Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] => {
      if ('text' in part) return part.text ? [{ type: 'text', text: part.text }] : [];
      if ('functionCall' in part) {
        const metadata = extraField(part, PROVIDER_METADATA_FIELD);
        return [
          {
            type: 'tool-call',
            toolCallId: part.functionCall.id,
            toolName: part.functionCall.name,
            input: part.functionCall.args ?? {},
            ...(isRecord(metadata) ? { providerOptions: metadata as SharedV3ProviderOptions } : {}),
          },
        ];
      }
      return [];
    });
    return parts.length > 0 ? [{ role: 'assistant', content: parts }] : [];
  }
  const messages: LanguageModelV3Message[] = [];
  const results = content.parts.flatMap((part) =>
    'functionResponse' in part
      ? [
          {
            type: 'tool-result' as const,
            toolCallId: part.functionResponse.id,
            toolName: part.functionResponse.name,
            output: { type: 'json' as const, value: (part.functionResponse.response ?? {}) as JSONValue },
          },
        ]
      : [],
  );
  if (results.length > 0) messages.push({ role: 'tool', content: results });
  const userParts = content.parts.flatMap((part) => toUserPart(part));
  if (userParts.length > 0) messages.push({ role: 'user', content: userParts });
  return messages;
}

function toUserPart(part: Part): Extract<LanguageModelV3Message, { role: 'user' }>['content'] {
  if ('text' in part) return part.text ? [{ type: 'text', text: part.text }] : [];
  if ('inlineData' in part) return [{ type: 'file', data: part.inlineData.data, mediaType: part.inlineData.mimeType }];
  return [];
}
