/**
 * Merges rankings of the same items by reciprocal rank fusion: an item scores `1 / (k + rank)` in
 * each list it is in (rank from 1), and the items are ordered by their summed score. Items high in
 * either list, and items in both, come first; the lists' own scores (BM25, cosine) need not be
 * comparable. `k` (60, as in the paper by Cormack et al.) damps the weight of the very first ranks.
 * Ties keep the order of first appearance: list first the ranking that should win a tie (memory
 * search lists meaning first, so a memory sharing only a common word such as "I" with the query
 * never outranks the one nearest in meaning).
 */
export function reciprocalRankFusion<T>(lists: readonly (readonly T[])[], k = 60): T[] {
  const scores = new Map<T, number>();
  for (const list of lists) {
    list.forEach((item, index) => scores.set(item, (scores.get(item) ?? 0) + 1 / (k + index + 1)));
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([item]) => item);
}
