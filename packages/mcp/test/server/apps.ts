import { type BaseAgent, contentText, FunctionAgent, FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import type { LlmRequest } from '@troupe/core';
import { z } from 'zod';

/** How many user turns a model request holds, and the last one's text. */
function lastTurn(request: LlmRequest): { turns: number; text: string } {
  const users = request.contents.filter((c) => c.role === 'user' && c.parts.some((p) => 'text' in p));
  return { turns: users.length, text: contentText(users.at(-1)) };
}

/**
 * A chat app whose model says which turn of the session it answers (`Turn 2: <message>`): a
 * second call that continues the session is seen in its answer.
 */
export function chatAgent(): BaseAgent {
  const reply: ScriptedReply = (request) => {
    const { turns, text } = lastTurn(request);
    return `Turn ${turns}: ${text}`;
  };
  return new LlmAgent({
    name: 'chat',
    description: 'Chats, and counts the turns of its session.',
    model: new ScriptedModel(Array.from({ length: 20 }, () => reply)),
  });
}

/**
 * A bank whose `transfer` tool asks for approval before it runs, and emits a custom event
 * (`ledger.updated`) when it does. The model calls it once per amount (in one turn), then answers
 * with the tool's results.
 */
export function bankAgent(amounts: readonly number[] = [120]): { agent: BaseAgent; sent: number[] } {
  const sent: number[] = [];
  const transfer = new FunctionTool({
    name: 'transfer',
    description: 'Sends money.',
    parameters: z.object({ amount: z.number() }),
    requireConfirmation: true,
    execute: async ({ amount }, ctx) => {
      sent.push(amount);
      await ctx.emit('ledger.updated', { amount });
      return { status: 'sent', amount };
    },
  });
  const answer: ScriptedReply = (request) => {
    const responses = (request.contents.at(-1)?.parts ?? []).flatMap((p) =>
      'functionResponse' in p ? [JSON.stringify(p.functionResponse.response)] : [],
    );
    return `Transfer done: ${responses.join(', ')}`;
  };
  const agent = new LlmAgent({
    name: 'banker',
    description: 'Moves money, with approval.',
    model: new ScriptedModel(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? { text: 'Sending it.', functionCalls: amounts.map((amount) => ({ name: 'transfer', args: { amount } })) }
          : answer,
      ),
    ),
    tools: [transfer],
  });
  return { agent, sent };
}

/** A travel agent whose `book` tool asks the person for the dates of the stay (a flat form). */
export function travelAgent(): BaseAgent {
  const book = new FunctionTool({
    name: 'book',
    description: 'Books a hotel.',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }, ctx) => {
      const stay = await ctx.requestInput<{ nights: number; breakfast: boolean }>({
        message: `How many nights in ${city}, and with breakfast?`,
        responseSchema: {
          type: 'object',
          properties: { nights: { type: 'integer', minimum: 1 }, breakfast: { type: 'boolean' } },
          required: ['nights', 'breakfast'],
        },
      });
      return { booked: city, ...stay };
    },
  });
  const answer: ScriptedReply = (request) => {
    const last = request.contents.at(-1)?.parts.find((p) => 'functionResponse' in p);
    return `Booked: ${JSON.stringify(last && 'functionResponse' in last ? last.functionResponse.response : {})}`;
  };
  return new LlmAgent({
    name: 'travel',
    description: 'Books hotels.',
    model: new ScriptedModel(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0 ? { functionCalls: [{ name: 'book', args: { city: 'Lisbon' } }] } : answer,
      ),
    ),
    tools: [book],
  });
}

/** A planner with a structured input and output: `{ city, days }` in, `{ city, stops }` out. */
export function plannerAgent(): BaseAgent {
  return new FunctionAgent({
    name: 'planner',
    description: 'Plans a trip.',
    inputSchema: z.object({ city: z.string(), days: z.number().int().min(1) }),
    outputSchema: z.object({ city: z.string(), stops: z.array(z.string()) }),
    run: ({ city, days }) => ({ city, stops: Array.from({ length: days }, (_, i) => `${city} day ${i + 1}`) }),
  });
}

/**
 * An agent that waits in its tool until the run is cancelled: `started` resolves when the tool
 * runs, so a test can cancel it mid-run.
 */
export function slowAgent(): { agent: BaseAgent; started: Promise<void>; cancelled: Promise<void> } {
  let onStart!: () => void;
  let onCancel!: () => void;
  const started = new Promise<void>((resolve) => (onStart = resolve));
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const wait = new FunctionTool({
    name: 'wait',
    description: 'Waits.',
    execute: (_args, ctx) =>
      new Promise((_resolve, reject) => {
        onStart();
        ctx.abortSignal.addEventListener(
          'abort',
          () => {
            onCancel();
            reject(new Error('The wait was cancelled.'));
          },
          { once: true },
        );
      }),
  });
  const agent = new LlmAgent({
    name: 'slow',
    description: 'Takes its time.',
    model: new ScriptedModel([{ functionCalls: [{ name: 'wait', args: {} }] }, 'Second turn answered.']),
    tools: [wait],
  });
  return { agent, started, cancelled };
}
