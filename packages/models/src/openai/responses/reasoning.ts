import type { ResponseReasoningItem } from 'openai/resources/responses/responses';
import { isRecord } from '../../shared/tool-arguments.js';

/**
 * The extra field on the first part of a model turn (its answer text, else its first function
 * call) that keeps the turn's reasoning items, so the next request of the same agent sends them
 * back before the items they led to. Other agents never see it: their history holds this turn as
 * plain text.
 */
export const REASONING_FIELD = 'openaiReasoning';

/** What {@link REASONING_FIELD} holds: the reasoning items, and the model that made them. */
export interface CarriedReasoning {
  /** Reasoning is encrypted for one model; another model (or provider) never gets it. */
  model: string;
  items: ResponseReasoningItem[];
}

/**
 * The reasoning items worth keeping from a turn: those with `encrypted_content`, the only ones a
 * request with `store: false` can send back (a bare id points at nothing stored).
 */
export function keptReasoning(model: string, items: readonly ResponseReasoningItem[]): CarriedReasoning | undefined {
  const kept = items
    .filter((item) => typeof item.encrypted_content === 'string' && item.encrypted_content !== '')
    .map((item) => ({
      type: 'reasoning' as const,
      id: item.id,
      summary: item.summary.map((s) => ({ type: 'summary_text' as const, text: s.text })),
      encrypted_content: item.encrypted_content,
    }));
  return kept.length > 0 ? { model, items: kept } : undefined;
}

/** The reasoning items a part carries, when `model` made them; none otherwise. */
export function carriedReasoning(value: unknown, model: string): ResponseReasoningItem[] {
  if (!isRecord(value) || value.model !== model || !Array.isArray(value.items)) return [];
  return value.items.filter(
    (item): item is ResponseReasoningItem =>
      isRecord(item) && item.type === 'reasoning' && typeof item.id === 'string' && Array.isArray(item.summary),
  );
}
