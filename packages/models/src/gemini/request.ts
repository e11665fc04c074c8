import type { Content, LlmRequest, Part } from '@troupe/core';
import type { Content as GeminiContent, GenerateContentConfig, Part as GeminiPart } from '@google/genai';
import { isGeneratedCallId } from '../shared/call-ids.js';
import { extraField, normalizeContents } from '../shared/contents.js';
import { providerOptionsOf, unmappedConfig } from '../shared/request-config.js';
import { joinInstructions, schemaInstruction } from '../shared/schema.js';

/**
 * Gemini 3 rejects a function call in the current turn without the thought signature it came
 * with; calls that did not come from Gemini (another model wrote the history) carry this value,
 * which Google documents for exactly that case.
 */
const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** How structured output is requested. */
export type GeminiStructuredOutput = 'auto' | 'native' | 'instruction';

export interface GeminiRequestSettings {
  structuredOutput: GeminiStructuredOutput;
  /** Config fields added to every request. */
  config: Record<string, unknown> | undefined;
}

/** The `generateContent` parameters for a Troupe request (the abort signal and fetch are added by the caller). */
export function toGeminiRequest(
  request: LlmRequest,
  model: string,
  settings: GeminiRequestSettings,
): { contents: GeminiContent[]; config: GenerateContentConfig } {
  const source = request.config;
  const schema = source.responseSchema;
  const hasTools = (source.tools?.length ?? 0) > 0;
  const native = schema !== undefined && useNativeSchema(settings.structuredOutput, model, hasTools);
  const config: GenerateContentConfig = {
    ...unmappedConfig(source),
    ...providerOptionsOf(source, 'gemini', settings.config),
  };
  const system = joinInstructions(source.systemInstruction, schema && !native ? schemaInstruction(schema) : undefined);
  if (system) config.systemInstruction = system;
  if (hasTools) {
    config.tools = [
      {
        functionDeclarations: (source.tools ?? []).map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.parameters ?? { type: 'object', properties: {} },
        })),
      },
    ];
  }
  if (native && schema) {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = schema;
  }
  if (source.temperature !== undefined) config.temperature = source.temperature;
  if (source.topP !== undefined) config.topP = source.topP;
  if (source.topK !== undefined) config.topK = source.topK;
  if (source.maxOutputTokens !== undefined) config.maxOutputTokens = source.maxOutputTokens;
  if (source.stopSequences !== undefined) config.stopSequences = source.stopSequences;
  if (source.seed !== undefined) config.seed = source.seed;
  const signatures = needsThoughtSignatures(model);
  return { contents: normalizeContents(request.contents).map((c) => toGeminiContent(c, signatures)), config };
}

/**
 * Gemini before 3 refuses a JSON response format together with function declarations, so with
 * tools the schema goes into the instruction (the agent validates the answer either way).
 */
function useNativeSchema(mode: GeminiStructuredOutput, model: string, hasTools: boolean): boolean {
  if (mode !== 'auto') return mode === 'native';
  return !(hasTools && /gemini-(?:1|2)(?:\.|-)/.test(model));
}

function needsThoughtSignatures(model: string): boolean {
  return !/gemini-(?:1|2)(?:\.|-)/.test(model);
}

function toGeminiContent(content: Content, signatures: boolean): GeminiContent {
  let signedCall = false;
  const parts = content.parts.flatMap((part): GeminiPart[] => {
    const converted = toGeminiPart(part);
    if (!converted) return [];
    if (converted.functionCall && content.role === 'model' && signatures && !signedCall) {
      // Only the first call of a turn carries a signature.
      converted.thoughtSignature ??= SKIP_SIGNATURE;
      signedCall = true;
    }
    return [converted];
  });
  return { role: content.role, parts };
}

function toGeminiPart(part: Part): GeminiPart | undefined {
  const signature = extraField(part, 'thoughtSignature');
  const signed = typeof signature === 'string' ? { thoughtSignature: signature } : {};
  if ('text' in part) return part.text || signed.thoughtSignature ? { text: part.text, ...signed } : undefined;
  if ('inlineData' in part) return { inlineData: { mimeType: part.inlineData.mimeType, data: part.inlineData.data } };
  if ('functionCall' in part) {
    const { id, name, args } = part.functionCall;
    return { functionCall: { ...(isGeneratedCallId(id) ? {} : { id }), name, args: args ?? {} }, ...signed };
  }
  const { id, name, response } = part.functionResponse;
  return { functionResponse: { ...(isGeneratedCallId(id) ? {} : { id }), name, response: response ?? {} } };
}
