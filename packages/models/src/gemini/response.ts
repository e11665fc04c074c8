import type { LlmResponse, Usage } from '@troupe/core';
import type { GenerateContentResponse, GenerateContentResponseUsageMetadata } from '@google/genai';
import { ResponseBuilder } from '../shared/response-builder.js';
import { StreamedCallAssembler } from './streamed-calls.js';

export function usageOf(usage: GenerateContentResponseUsageMetadata | undefined): Usage | undefined {
  if (!usage) return undefined;
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const result: Usage = {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    // Gemini counts thinking apart from the answer; Troupe's outputTokens is everything generated.
    outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
  };
  if (usage.cachedContentTokenCount !== undefined) result.cachedTokens = usage.cachedContentTokenCount;
  if (usage.thoughtsTokenCount !== undefined) result.thoughtTokens = thoughts;
  return result;
}

/**
 * Folds Gemini responses (one, or the chunks of a stream) into partial responses and the
 * complete one.
 */
export class GeminiAccumulator {
  private readonly builder = new ResponseBuilder();
  private readonly streamedCalls = new StreamedCallAssembler();
  /** Whether a chunk said why the turn ended; a stream without it was cut off. */
  finished = false;
  /**
   * Gemini parses call arguments itself, so it never sends malformed JSON; a call it could not
   * form ends the turn with `MALFORMED_FUNCTION_CALL` and no parts (the SDK drops the message
   * that would say which call). The adapter treats that as a transient failure and retries.
   */
  malformedCall = false;

  add(response: GenerateContentResponse): LlmResponse[] {
    const out: LlmResponse[] = [];
    const builder = this.builder;
    if (response.usageMetadata) builder.usage = usageOf(response.usageMetadata);
    if (response.promptFeedback?.blockReason) {
      builder.blockReason = response.promptFeedback.blockReason;
      builder.finishMessage =
        response.promptFeedback.blockReasonMessage ??
        `Gemini blocked the prompt (${response.promptFeedback.blockReason}).`;
      this.finished = true;
    }
    const candidate = response.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      const signature = part.thoughtSignature ? { thoughtSignature: part.thoughtSignature } : undefined;
      if (part.functionCall && this.streamedCalls.takes(part.functionCall)) {
        this.streamedCalls.add(part.functionCall, signature, builder);
      } else if (part.functionCall?.name) {
        builder.addCall(
          { id: part.functionCall.id, name: part.functionCall.name, args: part.functionCall.args },
          signature,
        );
      } else if (part.inlineData?.data && part.inlineData.mimeType) {
        builder.addPart({ inlineData: { mimeType: part.inlineData.mimeType, data: part.inlineData.data } });
      } else if (part.thought) {
        const chunk = builder.addThought(part.text);
        if (chunk) out.push(chunk);
      } else if (typeof part.text === 'string') {
        const chunk = builder.addText(part.text, signature);
        if (chunk) out.push(chunk);
      }
    }
    if (candidate?.finishReason) {
      // The turn is over: a call still waiting for pieces gets none.
      this.streamedCalls.flushInto(builder);
      this.finished = true;
      builder.finishReason = candidate.finishReason;
      if (candidate.finishMessage) builder.finishMessage = candidate.finishMessage;
      if ((candidate.finishReason as string) === 'MALFORMED_FUNCTION_CALL' && !builder.hasCalls)
        this.malformedCall = true;
    }
    return out;
  }

  final(): LlmResponse {
    this.streamedCalls.flushInto(this.builder);
    return this.builder.build();
  }
}
