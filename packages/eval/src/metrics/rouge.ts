/** Precision, recall and F-measure of a ROUGE score, each 0..1. */
export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

/**
 * Splits text into lowercase word tokens: runs of letters and digits (any script); punctuation
 * and whitespace separate tokens. No stemming and no stop words.
 */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * ROUGE-1: the overlap of unigrams between a candidate and a reference. Each token counts at most
 * as often as it occurs in the other text. Precision = overlap / candidate tokens, recall =
 * overlap / reference tokens, F-measure = their harmonic mean. Two texts without tokens match (1);
 * one without tokens scores 0.
 *
 * @example
 * rouge1('The weather in Paris is sunny', 'It is sunny in Paris').fmeasure; // ≈ 0.73
 */
export function rouge1(candidate: string, reference: string): RougeScore {
  const candidateTokens = tokenize(candidate);
  const referenceTokens = tokenize(reference);
  if (candidateTokens.length === 0 && referenceTokens.length === 0) return { precision: 1, recall: 1, fmeasure: 1 };
  if (candidateTokens.length === 0 || referenceTokens.length === 0) return { precision: 0, recall: 0, fmeasure: 0 };
  const remaining = new Map<string, number>();
  for (const token of referenceTokens) remaining.set(token, (remaining.get(token) ?? 0) + 1);
  let overlap = 0;
  for (const token of candidateTokens) {
    const left = remaining.get(token) ?? 0;
    if (left > 0) {
      overlap++;
      remaining.set(token, left - 1);
    }
  }
  const precision = overlap / candidateTokens.length;
  const recall = overlap / referenceTokens.length;
  const fmeasure = overlap === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, fmeasure };
}
