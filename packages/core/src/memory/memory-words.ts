/** Letters, digits and combining marks, in any script: what counts as a word in memory search. */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * The distinct words of a text for memory search, lowercased and in Unicode NFC, in order of first
 * appearance. Punctuation, operators and quotes are separators, so a query can never carry search
 * syntax into a store (the SQLite and PostgreSQL stores build their full-text queries from these words).
 *
 * @example
 * memoryWords('"Lisbon" OR city*, NEAR(');   // ['lisbon', 'or', 'city', 'near']
 */
export function memoryWords(text: string): string[] {
  const words = new Set<string>();
  for (const match of text.normalize('NFC').toLowerCase().matchAll(WORD)) words.add(match[0]);
  return [...words];
}
