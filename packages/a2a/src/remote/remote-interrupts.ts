import type { Part as A2aPart } from '@a2a-js/sdk';
import type { InterruptInfo } from '@troupe/core';
import { dataPart, dataValues, readParts, textPart } from './remote-parts.js';
import type { AskedInterrupt } from './remote-progress.js';
import type { TaskView } from './remote-task-view.js';

/**
 * A remote `input-required` as Troupe interrupts, and the human's answers as an A2A message.
 *
 * A Troupe peer (a2aApp) says which of its interrupts are open with a data part
 * `{ interruptId, kind, toolName, args, hint?, message?, payload?, responseSchema? }` on the status
 * message; each becomes an interrupt of the same kind here, so an approval asked far away is
 * answered here, and the answer goes back as `{ interruptId, confirmed }` or `{ interruptId, value }`.
 * Any other peer's question becomes one input request whose message is the remote's text; its
 * answer goes back as text (or as data, when it is not a string).
 */

/** One open interrupt of a Troupe peer, as its input-required status message carries it. */
interface PeerAsk {
  interruptId: string;
  kind: 'confirmation' | 'input';
  toolName?: string;
  args?: Record<string, unknown>;
  hint?: string;
  message?: string;
  payload?: unknown;
  responseSchema?: Record<string, unknown>;
}

export interface AskContext {
  /** The RemoteA2aAgent's name and path in the tree. */
  agentName: string;
  agentPath: string;
  /** How many questions were asked on this task before this one. */
  round: number;
}

/** The interrupts for the remote's current question. */
export function interruptsFor(view: TaskView, at: AskContext): AskedInterrupt[] {
  const parts = view.statusMessage?.parts ?? [];
  const base = { agentPath: at.agentPath, toolCallId: view.taskId };
  const peerAsks = dataValues(parts).filter(isPeerAsk);
  if (peerAsks.length > 0) {
    return peerAsks.map((ask) => ({
      remoteId: ask.interruptId,
      interrupt: compact({
        ...base,
        id: `${at.agentPath}:${view.taskId}:${ask.interruptId}`,
        kind: ask.kind,
        toolName: ask.toolName ?? at.agentName,
        args: ask.args ?? {},
        hint: ask.hint,
        // Not the status text: it tells A2A clients how to answer, which is this agent's job here.
        message: ask.message,
        payload: ask.payload,
        responseSchema: ask.responseSchema,
      }),
    }));
  }
  const data = readParts(parts).data;
  return [
    {
      interrupt: compact({
        ...base,
        id: `${at.agentPath}:${view.taskId}:${at.round + 1}`,
        kind: 'input',
        toolName: at.agentName,
        args: {},
        message: view.statusText || `Remote agent '${at.agentName}' needs more input to continue its task.`,
        payload: data.length === 0 ? undefined : data.length === 1 ? data[0] : data,
      }),
    },
  ];
}

/** The message parts that answer the given interrupts. */
export function answerParts(asked: readonly AskedInterrupt[], answers: ReadonlyMap<string, unknown>): A2aPart[] {
  const parts: A2aPart[] = [];
  for (const { interrupt, remoteId } of asked) {
    if (!answers.has(interrupt.id)) continue;
    const answer = answers.get(interrupt.id);
    if (remoteId !== undefined) {
      if (interrupt.kind === 'confirmation') {
        const { confirmed, payload } = answer as { confirmed: boolean; payload?: unknown };
        parts.push(
          dataPart(
            payload === undefined
              ? { interruptId: remoteId, confirmed }
              : { interruptId: remoteId, confirmed, payload },
          ),
        );
      } else {
        parts.push(dataPart({ interruptId: remoteId, value: answer }));
      }
    } else if (typeof answer === 'string') {
      parts.push(textPart(answer));
    } else if (typeof answer === 'object' && answer !== null && !Array.isArray(answer)) {
      parts.push(dataPart(answer));
    } else {
      parts.push(textPart(JSON.stringify(answer)));
    }
  }
  return parts;
}

function isPeerAsk(value: unknown): value is PeerAsk {
  if (typeof value !== 'object' || value === null) return false;
  const ask = value as Partial<PeerAsk>;
  return typeof ask.interruptId === 'string' && (ask.kind === 'confirmation' || ask.kind === 'input');
}

/** The interrupt without its undefined fields (events are stored as JSON). */
function compact(info: { [K in keyof InterruptInfo]: InterruptInfo[K] | undefined }): InterruptInfo {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(info)) if (value !== undefined) out[key] = value;
  return out as unknown as InterruptInfo;
}
