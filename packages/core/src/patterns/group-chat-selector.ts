import type { BaseAgent } from '../agents/base-agent.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { callModel } from '../agents/llm/model-call.js';
import type { Content } from '../events/content.js';
import { contentText } from '../events/content.js';
import type { Event, Usage } from '../events/event.js';
import { TroupeError } from '../errors.js';
import type { BaseLlm } from '../models/base-llm.js';
import type { LlmRequest } from '../models/llm-request.js';

/** What a function selector of a {@link GroupChatAgent} sees when it picks the next speaker. */
export interface GroupChatSelectorContext {
  /** The turn to pick a speaker for, from 0. */
  turn: number;
  /** The participants, in the order given. */
  participants: readonly BaseAgent[];
  /** Who spoke so far, one name per turn. */
  speakers: readonly string[];
  /** The conversation so far in this invocation: the user's message and the participants' events (theirs and their sub-agents'). */
  events: readonly Event[];
  /** The session state. */
  state: Readonly<Record<string, unknown>>;
}

/**
 * Who speaks next: `'round_robin'` (participants in order, again and again), a model (it sees the
 * participants' names and descriptions and the conversation and answers with a name, or `DONE`), or
 * a function returning a participant's name, or undefined to end the chat.
 */
export type GroupChatSelector = 'round_robin' | BaseLlm | ((ctx: GroupChatSelectorContext) => string | undefined);

/** A model selector answered twice with a name that is not a participant's. */
export class GroupChatSelectorError extends TroupeError {
  constructor(message: string) {
    super('GROUP_CHAT_SELECTOR', message);
  }
}

/** The word a model selector answers with to end the chat. */
export const SELECTOR_DONE = 'DONE';

/** A model selector's pick: a participant's name or undefined (DONE), and the tokens it used. */
export interface ModelPick {
  name: string | undefined;
  usage: Usage | undefined;
}

/**
 * Asks the selector model who speaks next. An answer that names no participant gets one retry with
 * the list repeated; a second one throws {@link GroupChatSelectorError}.
 */
export async function pickWithModel(
  ctx: InvocationContext,
  model: BaseLlm,
  chatName: string,
  selection: GroupChatSelectorContext,
): Promise<ModelPick> {
  const names = selection.participants.map((p) => p.name);
  const roster = selection.participants
    .map((p) => `- ${p.name}${p.description ? `: ${p.description}` : ''}`)
    .join('\n');
  const systemInstruction =
    `You choose who speaks next in the group chat '${chatName}'. The participants:\n${roster}\n` +
    `Read the conversation and answer with exactly one participant name and nothing else, or ${SELECTOR_DONE} when the conversation has reached its goal.`;
  const contents: Content[] = [
    {
      role: 'user',
      parts: [
        {
          text: `The conversation so far:\n${transcript(selection.events)}\n\nWho speaks next? Answer with one of: ${names.join(', ')}, or ${SELECTOR_DONE}.`,
        },
      ],
    },
  ];
  let usage: Usage | undefined;
  for (let attempt = 0; ; attempt++) {
    ctx.throwIfAborted();
    const request: LlmRequest = { model: model.model, contents: [...contents], config: { systemInstruction } };
    // The selector's streamed chunks are not shown: only its final answer matters.
    const { response } = await callModel(
      ctx,
      model,
      request,
      { beforeModelCallback: undefined, afterModelCallback: undefined },
      ignoreChunk,
    );
    if (response.usage) usage = addUsage(usage, response.usage);
    const answer = contentText(response.content).trim();
    const picked = matchName(answer, names);
    if (picked !== undefined) return { name: picked === SELECTOR_DONE ? undefined : picked, usage };
    if (attempt === 1) {
      throw new GroupChatSelectorError(
        `The selector model '${model.model}' of group chat '${chatName}' answered ${JSON.stringify(answer.slice(0, 100))} twice, which names no participant. ` +
          `It must answer with one of: ${names.join(', ')} (or ${SELECTOR_DONE}). Use a model that follows the instruction, or a function selector.`,
      );
    }
    contents.push(
      { role: 'model', parts: [{ text: answer }] },
      {
        role: 'user',
        parts: [
          {
            text: `${JSON.stringify(answer.slice(0, 100))} is not a participant. Answer with exactly one of: ${names.join(', ')}, or ${SELECTOR_DONE}.`,
          },
        ],
      },
    );
  }
}

/** The participant an answer names (case, quotes and a trailing full stop do not matter), `DONE`, or undefined. */
function matchName(answer: string, names: readonly string[]): string | undefined {
  const cleaned = answer.replace(/^["'`*\s]+|["'`*.\s]+$/g, '').toLowerCase();
  if (cleaned === SELECTOR_DONE.toLowerCase()) return SELECTOR_DONE;
  return names.find((name) => name.toLowerCase() === cleaned);
}

function transcript(events: readonly Event[]): string {
  const lines: string[] = [];
  for (const event of events) {
    const text = contentText(event.content).trim();
    if (text) lines.push(`${event.author}: ${text}`);
  }
  return lines.length > 0 ? lines.join('\n') : '(nothing yet)';
}

function addUsage(total: Usage | undefined, more: Usage): Usage {
  if (!total) return { ...more };
  return { inputTokens: total.inputTokens + more.inputTokens, outputTokens: total.outputTokens + more.outputTokens };
}

async function ignoreChunk(): Promise<void> {}
