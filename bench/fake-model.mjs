// The fake model shared by Troupe and the floor: a pure function from (mode, request) to one
// response, answered immediately (no network, no sleep, no timers). Troupe wraps it in a BaseLlm
// subclass (scenarios/troupe.mjs); the floor calls it directly (scenarios/floor.mjs). Both count
// their calls here so the benchmark can assert that the work was really done.

/** The 20-word answer every text reply carries. */
export const WORDS = Object.freeze(
  'the quick brown fox jumps over the lazy dog while seven bright stars shine above quiet hills and calm seas'.split(
    ' ',
  ),
);
export const TEXT = WORDS.join(' ');
if (WORDS.length !== 20) throw new Error(`fake model text must have 20 words, has ${WORDS.length}`);

/** Tool-call turns in tools10 before the final text answer. */
export const TOOL_TURNS = 10;

/** Model calls and tool executions since the last reset. */
export const counters = { llmCalls: 0, toolCalls: 0 };

export function resetCounters() {
  counters.llmCalls = 0;
  counters.toolCalls = 0;
}

/** Function responses already in the request: the tool-loop turn the model is at (stateless, like a real model). */
function toolTurn(contents) {
  let n = 0;
  for (const content of contents) for (const part of content.parts) if (part.functionResponse) n++;
  return n;
}

/**
 * One model answer. Modes:
 * - 'text': the 20-word text;
 * - 'tools': a call `add({a, b})` while fewer than TOOL_TURNS function responses are in the request, then the text;
 * - 'transfer': a `transfer_to_agent({ agent_name: 'worker' })` call.
 * `request` is `{ contents: Content[] }` (Troupe passes its full LlmRequest).
 */
export function respond(mode, request) {
  counters.llmCalls++;
  const inputTokens = request.contents.length * 8;
  if (mode === 'tools') {
    const turn = toolTurn(request.contents);
    if (turn < TOOL_TURNS) {
      return {
        content: {
          role: 'model',
          parts: [{ functionCall: { id: `call_${turn + 1}`, name: 'add', args: { a: turn, b: 1 } } }],
        },
        usage: { inputTokens, outputTokens: 6 },
        turnComplete: true,
        finishReason: 'STOP',
      };
    }
  } else if (mode === 'transfer') {
    return {
      content: {
        role: 'model',
        parts: [{ functionCall: { id: 'call_transfer', name: 'transfer_to_agent', args: { agent_name: 'worker' } } }],
      },
      usage: { inputTokens, outputTokens: 6 },
      turnComplete: true,
      finishReason: 'STOP',
    };
  } else if (mode !== 'text') {
    throw new Error(`unknown fake model mode ${mode}`);
  }
  return {
    content: { role: 'model', parts: [{ text: TEXT }] },
    usage: { inputTokens, outputTokens: 20 },
    turnComplete: true,
    finishReason: 'STOP',
  };
}

/** The `add` tool's work (both frameworks). */
export function add({ a, b }) {
  counters.toolCalls++;
  return a + b;
}
