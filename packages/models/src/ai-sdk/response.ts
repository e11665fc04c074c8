import type { LlmResponse, Usage } from '@troupe/core';
import type {
  LanguageModelV2,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { ResponseBuilder, ToolCallAssembler } from '../shared/response-builder.js';
import { isRecord } from '../shared/tool-arguments.js';
import { PROVIDER_METADATA_FIELD } from './prompt.js';

type V2GenerateResult = Awaited<ReturnType<LanguageModelV2['doGenerate']>>;
type V2StreamPart =
  Awaited<ReturnType<LanguageModelV2['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
/** A doGenerate result of either interface version. */
export type AnyGenerateResult = LanguageModelV3GenerateResult | V2GenerateResult;
/** A doStream part of either interface version. */
export type AnyStreamPart = LanguageModelV3StreamPart | V2StreamPart;

/** V3 reports `{ unified, raw }`, V2 the unified string. */
export function finishReasonOf(reason: unknown): string | undefined {
  const unified = isRecord(reason) ? reason.unified : reason;
  switch (unified) {
    case 'stop':
    case 'tool-calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content-filter':
      return 'SAFETY';
    case undefined:
      return undefined;
    default:
      return 'OTHER';
  }
}

/** V3 nests the counts (`inputTokens.total`, `outputTokens.reasoning`), V2 keeps them flat. */
export function usageOf(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const number = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
  const input = usage.inputTokens;
  const output = usage.outputTokens;
  const nested = isRecord(input) || isRecord(output);
  const inputTokens = nested ? number(isRecord(input) ? input.total : undefined) : number(input);
  const outputTokens = nested ? number(isRecord(output) ? output.total : undefined) : number(output);
  const cached = nested ? number(isRecord(input) ? input.cacheRead : undefined) : number(usage.cachedInputTokens);
  const reasoning = nested ? number(isRecord(output) ? output.reasoning : undefined) : number(usage.reasoningTokens);
  const result: Usage = { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 };
  if (cached !== undefined) result.cachedTokens = cached;
  if (reasoning !== undefined) result.thoughtTokens = reasoning;
  return result;
}

function metadataExtras(metadata: unknown): Record<string, unknown> | undefined {
  return isRecord(metadata) && Object.keys(metadata).length > 0 ? { [PROVIDER_METADATA_FIELD]: metadata } : undefined;
}

/** Adds one content part; sources and provider-executed tool results are not part of a Troupe turn. */
function addContent(
  builder: ResponseBuilder,
  part: LanguageModelV3Content | AnyGenerateResult['content'][number],
): void {
  if (part.type === 'text') builder.addText(part.text);
  else if (part.type === 'reasoning') builder.addThought(part.text);
  // Calls the provider ran itself (web search, code execution) are not Troupe's to run.
  else if (part.type === 'tool-call' && !part.providerExecuted)
    builder.addCall(
      { id: part.toolCallId, name: part.toolName, args: part.input },
      metadataExtras(part.providerMetadata),
    );
  else if (part.type === 'file')
    builder.addPart({
      inlineData: {
        mimeType: part.mediaType,
        data: typeof part.data === 'string' ? part.data : Buffer.from(part.data).toString('base64'),
      },
    });
}

/** The Troupe response for a doGenerate result. */
export function fromGenerateResult(result: AnyGenerateResult): LlmResponse {
  const builder = new ResponseBuilder();
  for (const part of result.content) addContent(builder, part);
  builder.usage = usageOf(result.usage);
  builder.finishReason = finishReasonOf(result.finishReason);
  return builder.build();
}

/** Folds doStream parts into partial responses and the complete response. */
export class AiSdkStreamAccumulator {
  private readonly builder = new ResponseBuilder();
  private readonly pending = new ToolCallAssembler<string>();
  /** Whether the `finish` part arrived; a stream without it was cut off. */
  finished = false;

  /** The partial responses this part adds; an `error` part is returned for the caller to throw. */
  add(part: AnyStreamPart): { responses: LlmResponse[]; error?: unknown } {
    const builder = this.builder;
    const one = (response: LlmResponse | undefined): { responses: LlmResponse[] } => ({
      responses: response ? [response] : [],
    });
    // Block boundaries (text-start/-end, ...), response metadata, sources and raw chunks add nothing to the turn.
    if (part.type === 'text-delta') return one(builder.addText(part.delta));
    if (part.type === 'reasoning-delta') return one(builder.addThought(part.delta));
    if (part.type === 'error') return { responses: [], error: part.error };
    if (part.type === 'tool-input-start' && !part.providerExecuted) {
      this.pending.add(part.id, { id: part.id, name: part.toolName });
    } else if (part.type === 'tool-input-delta' && this.pending.has(part.id)) {
      this.pending.add(part.id, { args: part.delta });
    } else if (part.type === 'tool-call') {
      this.pending.delete(part.toolCallId);
      addContent(builder, part);
    } else if (part.type === 'file') {
      addContent(builder, part);
    } else if (part.type === 'finish') {
      this.finished = true;
      builder.usage = usageOf(part.usage);
      builder.finishReason = finishReasonOf(part.finishReason);
    }
    return { responses: [] };
  }

  final(): LlmResponse {
    // Calls streamed as fragments whose complete tool-call part never came.
    this.pending.flushInto(this.builder);
    return this.builder.build();
  }
}
