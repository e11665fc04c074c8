/**
 * The chunks of the Vercel AI SDK's UI message stream (protocol `v1`, the `x-vercel-ai-ui-message-stream`
 * header) that Troupe sends: the part of the AI SDK's `UIMessageChunk` union that a Troupe run has
 * something to say in. Declared here so that `@troupe/server` does not depend on `ai`; every member is
 * assignable to `ai`'s own `UIMessageChunk`, so a stream of these goes to `readUIMessageStream` or
 * `createUIMessageStreamResponse` as it is.
 */
export type UiMessageChunk =
  | UiMessageStartChunk
  | UiMessageFinishChunk
  | { type: 'abort'; reason?: string }
  | { type: 'error'; errorText: string }
  | { type: 'text-start'; id: string; providerMetadata?: TroupePartMetadata }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string; providerMetadata?: TroupePartMetadata }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | UiToolApprovalRequestChunk
  | UiDataChunk;

/** Opens the assistant message the chunks after it fill. */
export interface UiMessageStartChunk {
  type: 'start';
  /** The assistant message's id: a new turn's invocation id, or the paused message a resume continues. */
  messageId?: string;
}

/** Why a run's message ended, in the AI SDK's words. */
export type UiFinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other';

/** Closes the assistant message. */
export interface UiMessageFinishChunk {
  type: 'finish';
  finishReason: UiFinishReason;
}

/** A tool call that waits for the user's approval (a Troupe confirmation). */
export interface UiToolApprovalRequestChunk {
  type: 'tool-approval-request';
  /** The confirmation's interrupt id: what the client's approval response names. */
  approvalId: string;
  toolCallId: string;
  /** The confirmation's hint (the question), shown as `part.approval.requestReason`. */
  reason?: string;
  /** The confirmation's payload, when it has one (`part.approval.descriptor`). */
  approvalDescriptor?: unknown;
}

/** A custom event (`ctx.emit(name, data)`), as a `data-<name>` part; its id is the event's id. */
export interface UiDataChunk {
  type: `data-${string}`;
  id?: string;
  data: unknown;
}

/** Which agent a text or reasoning part comes from: `part.providerMetadata.troupe`. */
export type TroupePartMetadata = { troupe: { author: string; path: string } };
