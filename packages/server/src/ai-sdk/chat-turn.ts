import type { Content, InterruptInfo, Session } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { resumeRecordAnswers } from '../adk-confirmation.js';
import { toolCallIdOf } from '../ag-ui/interrupts.js';
import { type ChatBody, type ChatMessage, invalid } from './chat-body.js';
import { userContentOf } from './user-message.js';

/** What one `useChat` request does on its session. */
export type ChatTurn =
  | {
      kind: 'run';
      /** The chat's last message, the user's: the new turn's message. */
      newMessage: Content;
    }
  | {
      kind: 'regenerate';
      newMessage: Content;
      /** The invocation (= assistant message id) that answered it before: rewound, then run again. */
      rewindBefore: string;
    }
  | {
      kind: 'resume';
      /** The assistant message that asked: the resumed stream goes on filling it. */
      messageId: string;
      /** Answers by interrupt id, as `runner.resume` takes them. */
      responses: Record<string, unknown>;
      /** Tool parts whose approval was denied: they end with `tool-output-denied`. */
      deniedToolCallIds: ReadonlySet<string>;
    };

/**
 * Decides what a `useChat` request asks of the session. The session holds the conversation, so
 * only the chat's last message is read:
 *
 * - a user message: a new turn with it (`submit-message`), or, with `regenerate-message`, the
 *   same message answered again: the invocation that answered it (the `messageId` the client
 *   regenerates, an assistant message's id being its invocation's id) is rewound first;
 * - an assistant message: the answers its tool parts give to the session's open interrupts, as
 *   `useChat` sends them back: a part in `approval-responded` answers its confirmation (approved,
 *   or denied, with the client's reason passed on to the model), a part with an output answers
 *   a tool's request for input (`addToolOutput`). The paused invocation goes on.
 *
 * What cannot be done is refused here, before anything is stored.
 */
export function planChatTurn(body: ChatBody, session: Session): ChatTurn {
  const index = body.messages.length - 1;
  const last = body.messages[index]!;
  const field = `messages.${index}`;
  if (body.trigger === 'regenerate-message') {
    if (last.role !== 'user') {
      throw invalid(
        `${field}.role`,
        `regenerate-message answers the chat's last user message again, so it must be the last message; got a '${last.role}' message`,
      );
    }
    return { kind: 'regenerate', newMessage: userContentOf(last, field), rewindBefore: regenerated(body, session) };
  }
  if (last.role === 'user') return { kind: 'run', newMessage: userContentOf(last, field) };
  if (last.role === 'assistant') return resumeOf(last, field, session);
  throw invalid(
    `${field}.role`,
    'expected the new user message (or the assistant message that answers approvals) last; a system message cannot start a turn: give the agent its instruction on the server',
  );
}

/** The invocation a regenerate request answers again: the assistant message's id, which the session must hold. */
function regenerated(body: ChatBody, session: Session): string {
  const messageId = body.messageId ?? undefined;
  if (messageId === undefined) {
    throw invalid('messageId', 'regenerate-message needs the id of the assistant message to answer again');
  }
  if (!session.events.some((event) => event.invocationId === messageId && event.author !== 'user')) {
    throw invalid(
      'messageId',
      `session '${session.id}' has no answer '${messageId}' to regenerate (an assistant message's id is the id of the invocation that wrote it). Send a new message instead`,
    );
  }
  return messageId;
}

function resumeOf(message: ChatMessage, field: string, session: Session): ChatTurn {
  const open = openInterrupts(session.events);
  const byId = new Map(open.map((interrupt) => [interrupt.id, interrupt]));
  const byCall = new Map(open.map((interrupt) => [callIdOf(interrupt), interrupt]));
  const responses: Record<string, unknown> = {};
  const denied = new Set<string>();
  message.parts.forEach((part, i) => {
    if (!part.type.startsWith('tool-') && part.type !== 'dynamic-tool') return;
    const at = `${field}.parts.${i}`;
    if (part.state === 'approval-responded') {
      const { id, approved, reason } = approvalOf(part.approval, `${at}.approval`);
      const interrupt = byId.get(id);
      if (interrupt && interrupt.kind !== 'confirmation') {
        throw invalid(`${at}.approval.id`, `'${id}' asks for input, not an approval: answer it with addToolOutput`);
      }
      // One answered already is the runner's to refuse (409 INTERRUPT_ANSWERED): the retry changes nothing.
      if (!interrupt && !answeredBefore(session, id)) throw notOpen(`${at}.approval.id`, id, session, open);
      responses[id] = approved || reason === undefined ? approved : { confirmed: false, payload: { reason } };
      if (!approved) denied.add(interrupt ? callIdOf(interrupt) : String(part.toolCallId));
    } else if (part.state === 'output-available' || part.state === 'output-error') {
      const interrupt = typeof part.toolCallId === 'string' ? byCall.get(part.toolCallId) : undefined;
      if (interrupt?.kind !== 'input') return;
      responses[interrupt.id] = part.state === 'output-available' ? part.output : { error: String(part.errorText) };
    }
  });
  if (Object.keys(responses).length === 0) throw nothingAnswered(field, session, open);
  return { kind: 'resume', messageId: message.id, responses, deniedToolCallIds: denied };
}

/** The tool part id of the call an interrupt paused. */
function callIdOf(interrupt: InterruptInfo): string {
  return toolCallIdOf(interrupt.agentPath, interrupt.toolCallId);
}

function approvalOf(value: unknown, field: string): { id: string; approved: boolean; reason?: string } {
  const approval = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  if (typeof approval.id !== 'string') throw invalid(`${field}.id`, 'expected the approval id as a string');
  if (typeof approval.approved !== 'boolean') throw invalid(`${field}.approved`, 'expected true or false');
  const reason = typeof approval.reason === 'string' && approval.reason !== '' ? approval.reason : undefined;
  return reason === undefined
    ? { id: approval.id, approved: approval.approved }
    : { id: approval.id, approved: approval.approved, reason };
}

/** True when a stored resume record of the session answered interrupt `id`. */
function answeredBefore(session: Session, id: string): boolean {
  return session.events.some((event) => Object.hasOwn(resumeRecordAnswers(event) ?? {}, id));
}

function notOpen(field: string, id: string, session: Session, open: readonly InterruptInfo[]) {
  const waiting = open.filter((i) => i.kind === 'confirmation').map((i) => `'${i.id}'`);
  return invalid(
    field,
    `session '${session.id}' has no approval '${id}' waiting (${waiting.length > 0 ? `it waits for ${waiting.join(', ')}` : 'it waits for none'}). Answer the approval ids of the chat's last assistant message`,
  );
}

function nothingAnswered(field: string, session: Session, open: readonly InterruptInfo[]) {
  const waiting =
    open.length === 0
      ? `session '${session.id}' waits for nothing, so a request needs a new user message last`
      : `session '${session.id}' waits for ${open.map((i) => `'${i.id}'`).join(', ')}, and the message answers none of them (a tool part in 'approval-responded', from addToolApprovalResponse, or one with an output for a request for input, from addToolOutput)`;
  return invalid(field, `the last message is the assistant's: ${waiting}`);
}
