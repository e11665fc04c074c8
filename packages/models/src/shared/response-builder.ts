import type { FunctionCallPart, LlmResponse, Part, TextPart, Usage } from '@troupe/core';
import { newCallId } from './call-ids.js';
import { parseArguments } from './tool-arguments.js';

/** Extra fields a provider needs back on a part in later requests (Gemini's `thoughtSignature`, ...). */
export type PartExtras = Record<string, unknown>;

/**
 * Collects one model turn, from a complete response or from stream deltas, into the final
 * {@link LlmResponse}: thought text, answer text, then the function calls. Text deltas become
 * partial responses as they arrive; the final response holds each piece once.
 */
export class ResponseBuilder {
  private thought = '';
  private text = '';
  private textExtras: PartExtras = {};
  private readonly extraParts: Part[] = [];
  private readonly calls: FunctionCallPart[] = [];
  usage: Usage | undefined;
  finishReason: string | undefined;
  /** Why the model stopped, in the provider's words (Gemini's finishMessage, a refusal, ...). */
  finishMessage: string | undefined;
  /** Set when the provider blocked the request itself (Gemini's promptFeedback). */
  blockReason: string | undefined;

  /** Adds reasoning text; returns the partial response to stream, if any. */
  addThought(delta: string | undefined | null): LlmResponse | undefined {
    if (!delta) return undefined;
    this.thought += delta;
    return partial({ text: delta, thought: true });
  }

  /** Adds answer text; returns the partial response to stream, if any. */
  addText(delta: string | undefined | null, extras?: PartExtras): LlmResponse | undefined {
    if (extras) Object.assign(this.textExtras, extras);
    if (!delta) return undefined;
    this.text += delta;
    return partial({ text: delta });
  }

  /** Adds a complete function call. `args` may be the provider's JSON text. */
  addCall(
    call: { id?: string | null | undefined; name: string; args: Record<string, unknown> | string | null | undefined },
    extras?: PartExtras,
  ): void {
    const args = typeof call.args === 'string' ? parseArguments(call.args) : (call.args ?? {});
    const part: FunctionCallPart & PartExtras = {
      functionCall: { id: call.id || newCallId(), name: call.name, args },
      ...extras,
    };
    this.calls.push(part);
  }

  /** Adds extra fields to the first function call of the turn (e.g. Anthropic thinking blocks). */
  attachToFirstCall(extras: PartExtras): void {
    const first = this.calls[0];
    if (first) Object.assign(first, extras);
  }

  /** Adds a part that is neither text nor a call (generated images). */
  addPart(part: Part): void {
    this.extraParts.push(part);
  }

  get hasCalls(): boolean {
    return this.calls.length > 0;
  }

  /** The complete response. A turn with no content that did not stop normally carries an error code. */
  build(): LlmResponse {
    const parts: Part[] = [];
    if (this.thought) parts.push({ text: this.thought, thought: true });
    if (this.text || Object.keys(this.textExtras).length > 0) {
      const textPart: TextPart & PartExtras = { text: this.text, ...this.textExtras };
      parts.push(textPart);
    }
    parts.push(...this.extraParts, ...this.calls);
    const response: LlmResponse = { content: { role: 'model', parts }, turnComplete: true };
    if (this.usage) response.usage = this.usage;
    if (this.finishReason) response.finishReason = this.finishReason;
    const answered = this.text !== '' || this.calls.length > 0 || this.extraParts.length > 0;
    if (this.blockReason) {
      response.errorCode = this.blockReason;
      response.errorMessage = this.finishMessage ?? `The provider blocked the request (${this.blockReason}).`;
    } else if (!answered && this.finishReason && this.finishReason !== 'STOP') {
      response.errorCode = this.finishReason;
      response.errorMessage = this.finishMessage ?? `The model stopped with ${this.finishReason} before answering.`;
    }
    return response;
  }
}

function partial(part: Part): LlmResponse {
  return { content: { role: 'model', parts: [part] }, partial: true };
}

/**
 * Assembles function calls streamed in fragments (OpenAI's `tool_calls[].index`, Anthropic's
 * content block index): the id and name come first, the JSON arguments in pieces.
 */
export class ToolCallAssembler<K> {
  private readonly entries = new Map<K, { id: string; name: string; args: string; extras: PartExtras | undefined }>();

  add(
    key: K,
    fragment: { id?: string | null | undefined; name?: string | null | undefined; args?: string | null | undefined },
    extras?: PartExtras,
  ): void {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { id: '', name: '', args: '', extras };
      this.entries.set(key, entry);
    }
    if (fragment.id) entry.id = fragment.id;
    if (fragment.name)
      entry.name +=
        entry.name && fragment.name.startsWith(entry.name) ? fragment.name.slice(entry.name.length) : fragment.name;
    if (fragment.args) entry.args += fragment.args;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Forgets a call that arrived complete after all (the AI SDK sends both fragments and the whole call). */
  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Moves the assembled calls, in the order they started, into the builder. */
  flushInto(builder: ResponseBuilder): void {
    for (const entry of this.entries.values())
      builder.addCall({ id: entry.id, name: entry.name, args: entry.args }, entry.extras);
    this.entries.clear();
  }
}
