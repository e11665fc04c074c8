import type { LlmRequest } from '../models/llm-request.js';

/** Appends a paragraph to a request's system instruction (ADK's `appendInstructions`). */
export function appendInstruction(request: LlmRequest, text: string): void {
  const current = request.config.systemInstruction;
  request.config.systemInstruction = current ? `${current}\n\n${text}` : text;
}
