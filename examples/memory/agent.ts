/**
 * Long-term memory across sessions (ADK's memory service).
 *
 * `Assistant` has the built-in `load_memory` tool: when a question needs something the user said
 * in an earlier session, its model calls `load_memory` with a few key words and gets the matching
 * memories (text, who said it, when). `PreloadingAssistant` has `preload_memory` instead: before
 * every model call, the memories that match the user's message are added to its system
 * instruction, without a tool call.
 *
 * A session gets into memory when the app adds it: `runner.memoryService.addSessionToMemory(session)`.
 * `troupe run` does that after every turn when the runner has a memory service (SQLite: the same
 * `.troupe/troupe.db` file; `--memory`: this process only), so two separate runs remember:
 *
 * Try: npx troupe run examples/memory --input "Remember this: my favourite city is Lisbon."
 *      npx troupe run examples/memory --input "Check your memory: what is my favourite city?"
 */
import { LlmAgent, LoadMemoryTool, loadMemoryTool, preloadMemoryTool } from '@troupe/core';

export const rootAgent = new LlmAgent({
  name: 'Assistant',
  description: 'A personal assistant that remembers what the user told it in earlier conversations.',
  instruction:
    'You are a personal assistant. When the user asks about something they told you before (their preferences, plans, people and places in their life), look it up in your memory before you answer, and say when you found nothing.',
  tools: [loadMemoryTool],
});

export const preloadingAssistant = new LlmAgent({
  name: 'PreloadingAssistant',
  description: 'A personal assistant that is reminded of earlier conversations before every answer.',
  instruction:
    'You are a personal assistant. Use what you know from earlier conversations with the user when it helps.',
  tools: [preloadMemoryTool],
});

/**
 * The same assistant searching by meaning: "which town do I like?" finds "my favourite city is
 * Lisbon" although they share no word. It needs a memory service with an embedder, e.g.
 * `new InMemoryMemoryService({ embedder: openaiEmbedder({ model: 'text-embedding-3-small' }) })`
 * (`@troupe/models`); the test uses `FakeEmbedder`. See docs/memory.md, "Semantic memory".
 */
export const semanticAssistant = new LlmAgent({
  name: 'SemanticAssistant',
  description: 'A personal assistant that recalls earlier conversations by meaning, not only by words.',
  instruction:
    'You are a personal assistant. When the user asks about something they told you before, look it up in your memory in their words before you answer, and say when you found nothing.',
  tools: [new LoadMemoryTool({ mode: 'hybrid' })],
});
