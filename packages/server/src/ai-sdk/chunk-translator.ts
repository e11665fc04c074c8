import {
  type Event,
  getFunctionCalls,
  getFunctionResponses,
  type InterruptInfo,
  isClientToolInterrupt,
  type RunResult,
  TroupeError,
} from '@troupe/core';
import { toolCallIdOf } from '../ag-ui/interrupts.js';
import { toHttpError } from '../http-error.js';
import { TextLanes } from './text-lanes.js';
import type { UiFinishReason, UiMessageChunk } from './ui-message-chunk.js';

/** The name of the data part that carries a tool's request for input: `data-troupe-input-request`. */
export const INPUT_REQUEST_PART = 'troupe-input-request';

/** What the translator of one run's message needs to know. */
export interface ChunkTranslatorOptions {
  /** The assistant message's id, sent on `start`; undefined: the run's invocation id. */
  messageId?: string | undefined;
  /** Tool parts (by `toolCallId`) whose approval the user denied: their rejection ends as `tool-output-denied`. */
  deniedToolCallIds?: ReadonlySet<string> | undefined;
}

/**
 * Turns one run's Troupe events into UI message stream chunks. There is one event vocabulary,
 * Troupe's; this is only its AI SDK encoding:
 *
 * - model text and thought parts: text and reasoning parts, one per agent turn, streamed as deltas
 *   when the run streams (see {@link TextLanes}), the agent named in `providerMetadata.troupe`;
 * - function calls: `tool-input-available` (the part is `tool-<name>`); function responses:
 *   `tool-output-available`, or `tool-output-error` for a tool that failed (`{ error }`), or
 *   `tool-output-denied` for a call whose approval was denied;
 * - a confirmation: `tool-approval-request` on its call's part (approval id = interrupt id); a
 *   tool's request for input: its call stays `input-available` and a `data-troupe-input-request`
 *   part says what is asked (the answer comes back as the part's output, `addToolOutput`);
 * - custom events (`ctx.emit(name, data)`): `data-<name>` parts, the event's id as the part's id;
 * - the end: `finish` (`stop`, or `tool-calls` while the run waits for the user), `abort` for a
 *   cancelled run, `error` with the error event's message for a failed one.
 */
export class ChunkTranslator {
  private readonly lanes = new TextLanes();
  /** Tool calls this stream has opened a part for. */
  private readonly calls = new Set<string>();
  private readonly denied: ReadonlySet<string>;
  private started = false;
  /** The run's last non-partial event: what the cancel route answers with. */
  lastEvent: Event | undefined;

  constructor(private readonly options: ChunkTranslatorOptions = {}) {
    this.denied = options.deniedToolCallIds ?? new Set();
  }

  /** `start`, once, before the first part: named after the option's id or the run's invocation. */
  start(invocationId?: string): UiMessageChunk[] {
    if (this.started) return [];
    this.started = true;
    const messageId = this.options.messageId ?? invocationId;
    return [messageId === undefined ? { type: 'start' } : { type: 'start', messageId }];
  }

  /** The chunks of one Troupe event. */
  translate(event: Event): UiMessageChunk[] {
    const out = this.start(event.invocationId);
    if (event.partial) return [...out, ...this.lanes.partial(event)];
    this.lastEvent = event;
    // The user's own message is the client's already; an agent's user-role content carries tool results.
    if (event.content && event.author !== 'user') {
      if (event.content.role === 'model') out.push(...this.modelTurn(event));
      out.push(...this.toolResults(event));
    }
    if (event.interrupt) out.push(...this.interrupt(event.interrupt));
    if (event.customEvent) {
      const { name, data } = event.customEvent;
      out.push({ type: `data-${name}`, id: event.id, data: data ?? null });
    }
    return out;
  }

  /** The end of a run that returned: `finish`, with `tool-calls` while it waits for the user. */
  finish(result: RunResult): UiMessageChunk[] {
    const reason: UiFinishReason =
      result.status === 'completed' ? 'stop' : result.status === 'interrupted' ? 'tool-calls' : 'other';
    return [...this.start(result.invocationId), ...this.lanes.closeAll(), { type: 'finish', finishReason: reason }];
  }

  /**
   * The end of a run that threw: `abort` for a cancelled run; else `error` with the message of the
   * error event the runner stored, and `finish`. A failure the runner did not report itself (a bug)
   * is told to `onFailure` and reaches the client without its detail, as 5xx answers do.
   */
  fail(error: unknown, onFailure: (error: unknown) => void): UiMessageChunk[] {
    const out = [...this.start(this.lastEvent?.invocationId), ...this.lanes.closeAll()];
    const code = error instanceof TroupeError ? error.code : undefined;
    if (code === 'CANCELLED') return [...out, { type: 'abort', reason: this.lastEvent?.errorMessage ?? 'cancelled' }];
    const reported = this.lastEvent?.errorCode !== undefined ? this.lastEvent : undefined;
    if (!reported) onFailure(error);
    const errorText = reported?.errorMessage ?? reported?.errorCode ?? toHttpError(error).clientMessage;
    const finishReason: UiFinishReason =
      code === 'RUN_LIMIT' ? 'length' : code === 'GUARDRAIL_TRIPPED' ? 'content-filter' : 'error';
    return [...out, { type: 'error', errorText }, { type: 'finish', finishReason }];
  }

  private modelTurn(event: Event): UiMessageChunk[] {
    const parts = event.content!.parts;
    const text = parts.map((p) => ('text' in p && !p.thought ? p.text : '')).join('');
    const reasoning = parts.map((p) => ('text' in p && p.thought ? p.text : '')).join('');
    const { out } = this.lanes.final(event, text, reasoning);
    for (const call of getFunctionCalls(event)) {
      const toolCallId = toolCallIdOf(event.path, call.id);
      this.calls.add(toolCallId);
      out.push({ type: 'tool-input-available', toolCallId, toolName: call.name, input: call.args ?? {} });
    }
    return out;
  }

  private toolResults(event: Event): UiMessageChunk[] {
    return getFunctionResponses(event).map((response): UiMessageChunk => {
      const toolCallId = toolCallIdOf(event.path, response.id);
      if (this.denied.has(toolCallId)) return { type: 'tool-output-denied', toolCallId };
      const failure = toolFailure(response.response);
      return failure === undefined
        ? { type: 'tool-output-available', toolCallId, output: response.response }
        : { type: 'tool-output-error', toolCallId, errorText: failure };
    });
  }

  /**
   * A pause for the user. The call's part exists on the client when this stream opened it, or when
   * the stream continues the message that did (a resume raises the open interrupts again);
   * otherwise it is opened here, from the interrupt, since the AI SDK rejects an approval for a
   * part it does not have.
   */
  private interrupt(interrupt: InterruptInfo): UiMessageChunk[] {
    const toolCallId = toolCallIdOf(interrupt.agentPath, interrupt.toolCallId);
    const out: UiMessageChunk[] = [];
    if (!this.calls.has(toolCallId)) {
      this.calls.add(toolCallId);
      out.push({ type: 'tool-input-available', toolCallId, toolName: interrupt.toolName, input: interrupt.args });
    }
    if (interrupt.kind === 'confirmation') {
      out.push({
        type: 'tool-approval-request',
        approvalId: interrupt.id,
        toolCallId,
        ...(interrupt.hint === undefined ? {} : { reason: interrupt.hint }),
        ...(interrupt.payload === undefined ? {} : { approvalDescriptor: interrupt.payload }),
      });
    } else if (!isClientToolInterrupt(interrupt)) {
      // A client tool needs no question: the AI SDK's onToolCall runs it from tool-input-available.
      const { id, toolName, message, payload, responseSchema } = interrupt;
      out.push({
        type: `data-${INPUT_REQUEST_PART}`,
        id,
        data: { interruptId: id, toolCallId, toolName, message, payload, responseSchema },
      });
    }
    return out;
  }
}

/** The error of a tool call that failed: Troupe stores its response as `{ error }` and nothing else. */
function toolFailure(response: Record<string, unknown>): string | undefined {
  const keys = Object.keys(response);
  return keys.length === 1 && typeof response.error === 'string' ? response.error : undefined;
}
