import type { InterruptInfo, WireEvent } from '../types.js';
import { blockedTitle, eventFacts } from './event-facts.js';
import { isImageType } from './image-types.js';
import { compactionOf, invocationStart, rewoundIds } from './rewind.js';
import type { KindOf } from './workflow-progress.js';

/** One line of the chat: what the user and the agents said, and the steps in between. */
export type ChatItem =
  | { kind: 'user'; key: string; eventIndex: number; text: string }
  | { kind: 'agent'; key: string; eventIndex: number; author: string; text: string }
  | { kind: 'step'; key: string; eventIndex: number; author: string; text: string }
  | { kind: 'error'; key: string; eventIndex: number; author: string; text: string }
  /** An image part (inline data) of a message. */
  | { kind: 'image'; key: string; eventIndex: number; author: string; mimeType: string; data: string };

/**
 * The chat transcript of a session's events: user messages, agents' text (thoughts left out),
 * and one short line per tool call, tool result, transfer, interrupt, answer, error, compaction
 * and rewind, and the workflow and pattern agents' progress in words (`kindOf` names each author's
 * kind). Rewound events are left out.
 */
export function transcript(events: readonly WireEvent[], kindOf?: KindOf): ChatItem[] {
  const items: ChatItem[] = [];
  const asked = new Map<string, InterruptInfo>();
  const rewound = rewoundIds(events);
  events.forEach((event, eventIndex) => {
    // What a rewind took back is no longer the conversation (the events panel still shows it).
    if (rewound.has(event.id)) return;
    if (event.actions.rewindBeforeInvocationId !== undefined) {
      items.push({
        kind: 'step',
        key: event.id,
        eventIndex,
        author: event.author,
        text: `rewound ${eventIndex - invocationStart(events, event.actions.rewindBeforeInvocationId, eventIndex)} events`,
      });
      return;
    }
    const compaction = compactionOf(events, eventIndex);
    if (compaction) {
      items.push({
        kind: 'step',
        key: event.id,
        eventIndex,
        author: event.author,
        text: `compacted ${compaction.count} events into a summary`,
      });
      return;
    }
    if (event.interrupt) asked.set(event.interrupt.id, event.interrupt);
    const author = event.author;
    // A run started with a structured input (an agent's inputSchema) stores it on the user event.
    const input = author === 'user' ? structuredInput(event) : undefined;
    const hasText = (event.content?.parts ?? []).some((part) => 'text' in part && part.text !== '');
    if (input !== undefined && !hasText)
      items.push({ kind: 'user', key: `${event.id}:input`, eventIndex, text: `input ${JSON.stringify(input)}` });
    eventFacts(event, kindOf).forEach((fact, n) => {
      const key = `${event.id}:${n}`;
      const at = { key, eventIndex, author };
      switch (fact.kind) {
        case 'text':
          items.push(
            author === 'user'
              ? { kind: 'user', key, eventIndex, text: fact.text }
              : { kind: 'agent', ...at, text: fact.text },
          );
          break;
        case 'call':
          if (fact.name !== 'transfer_to_agent') items.push({ kind: 'step', ...at, text: `called ${fact.name}` });
          break;
        case 'result':
          if (fact.name !== 'transfer_to_agent') items.push({ kind: 'step', ...at, text: `${fact.name} returned` });
          break;
        case 'transfer':
          items.push({ kind: 'step', ...at, text: `transferred to ${fact.to}` });
          break;
        case 'route':
          items.push({ kind: 'step', ...at, text: `routed to ${fact.key}` });
          break;
        case 'interrupt':
          items.push({
            kind: 'step',
            ...at,
            text:
              fact.interruptKind === 'confirmation'
                ? `asks to approve ${fact.toolName}`
                : fact.toolName === 'adk_request_input'
                  ? `asks: ${fact.prompt || 'for input'}`
                  : `asks for input for ${fact.toolName}`,
          });
          break;
        case 'answers':
          items.push({ kind: 'step', ...at, text: describeAnswers(fact.answers, asked) });
          break;
        case 'error':
          items.push({ kind: 'error', ...at, text: `${fact.code}: ${fact.message}` });
          break;
        case 'blocked':
          items.push({ kind: 'error', ...at, text: `${blockedTitle(fact)}: ${fact.message}` });
          break;
        case 'data':
          if (isImageType(fact.mimeType))
            items.push({ kind: 'image', ...at, mimeType: fact.mimeType, data: fact.data });
          break;
        case 'progress':
          if (fact.workflow !== 'agent') items.push({ kind: 'step', ...at, text: fact.text });
          break;
        case 'custom':
          items.push({ kind: 'step', ...at, text: customText(fact.name, fact.data) });
          break;
        case 'thought':
        case 'escalate':
        case 'state':
        case 'output':
        case 'usage':
          break;
      }
    });
  });
  return items;
}

/** The structured input a run was started with, recorded on its opening user event (the agent may also give it as text). */
function structuredInput(event: WireEvent): unknown {
  const state = event.actions.agentState;
  return state && typeof state === 'object' && 'input' in state ? state.input : undefined;
}

/** "approved book_table", "rejected send_mail", "answered ask_name with \"Ada\"". */
function describeAnswers(answers: Record<string, unknown>, asked: ReadonlyMap<string, InterruptInfo>): string {
  const parts = Object.entries(answers).map(([id, answer]) => {
    const interrupt = asked.get(id);
    // A workflow's RequestInput has no tool of its own: name the node's request.
    const tool = interrupt?.toolName === 'adk_request_input' ? 'the request' : (interrupt?.toolName ?? id);
    // Stored as { confirmed }; the copy shown while the resume streams still holds the plain boolean sent.
    const confirmed =
      interrupt?.kind !== 'confirmation'
        ? undefined
        : typeof answer === 'boolean'
          ? answer
          : typeof answer === 'object' && answer !== null
            ? (answer as { confirmed?: unknown }).confirmed
            : undefined;
    if (confirmed === true) return `approved ${tool}`;
    if (confirmed === false) return `rejected ${tool}`;
    return `answered ${tool} with ${JSON.stringify(answer)}`;
  });
  return parts.join(', ') || 'answered nothing';
}

/** A custom event as a chat step: its name, and its data as short JSON. */
function customText(name: string, data: unknown): string {
  if (data === undefined) return name;
  const json = JSON.stringify(data);
  return `${name} ${json.length > 120 ? `${json.slice(0, 119)}…` : json}`;
}
