import type { Content } from '../../events/content.js';
import type { BaseLlm } from '../../models/base-llm.js';
import type { HistoryView, HistoryWindow } from './history.js';

/**
 * A model that can count the tokens of contents (an optional capability of {@link BaseLlm}); a
 * history window with `maxTokens` uses it, and characters / 4 otherwise.
 */
export interface TokenCounter {
  countTokens(contents: readonly Content[]): number | Promise<number>;
}

function hasTokenCounter(model: BaseLlm): model is BaseLlm & TokenCounter {
  return typeof (model as Partial<TokenCounter>).countTokens === 'function';
}

/**
 * The part of the history a window keeps: from a user turn (or a point where no function call is
 * cut from its response), never later than the current turn, which is always kept whole.
 *
 * `stepped` (prompt caching on): the start moves in steps of about half the window instead of
 * every turn, so the history the provider cached stays the request's prefix for several turns.
 * The window still never holds more than its limit; it holds between half of it and all of it.
 * The steps are counted from the session's first content, so they stay put as history grows.
 */
export async function applyWindow(
  view: HistoryView,
  window: HistoryWindow,
  model: BaseLlm,
  stepped = false,
): Promise<Content[]> {
  const contents = view.contents;
  const userTurns = view.userTurns();
  const current = userTurns.length > 0 ? userTurns[userTurns.length - 1]! : 0;
  let start = 0;
  if (window.lastTurns !== undefined) {
    let earlier = userTurns.length - 1 - window.lastTurns;
    if (stepped && earlier > 0) {
      const step = Math.max(1, Math.ceil(window.lastTurns / 2));
      earlier = Math.min(Math.ceil(earlier / step) * step, userTurns.length - 1);
    }
    // With no more turns than asked for, everything stays (also what came before the first turn).
    if (earlier > 0) start = userTurns[earlier]!;
  }
  if (window.maxTokens !== undefined && start < current) {
    let starts = cutPoints(contents, start, current);
    if (stepped) starts = gridPoints(contents, starts, current, window.maxTokens);
    start = hasTokenCounter(model)
      ? await fittingStartByModel(contents, starts, current, window.maxTokens, model)
      : fittingStartByCharacters(contents, starts, current, window.maxTokens);
  }
  return start === 0 ? contents : contents.slice(start);
}

/**
 * Indexes in `[from, to]` where history may start: a user-role content that is not a tool result,
 * with no function call before it whose response comes at or after it.
 */
function cutPoints(contents: readonly Content[], from: number, to: number): number[] {
  const callAt = new Map<string, number>();
  // For each index: the earliest call answered at or after it (so no cut may fall in between).
  const openUntil = new Array<number>(contents.length).fill(-1);
  for (let i = 0; i < contents.length; i++) {
    for (const part of contents[i]!.parts) {
      if ('functionCall' in part) callAt.set(part.functionCall.id, i);
      else if ('functionResponse' in part) {
        const call = callAt.get(part.functionResponse.id);
        if (call !== undefined) for (let j = call + 1; j <= i; j++) openUntil[j] = i;
      }
    }
  }
  const points: number[] = [];
  for (let i = from; i <= to; i++) {
    const content = contents[i]!;
    if (content.role !== 'user' || openUntil[i]! >= 0) continue;
    if (content.parts.some((p) => 'functionResponse' in p)) continue;
    points.push(i);
  }
  if (points[points.length - 1] !== to) points.push(to);
  return points;
}

/** The earliest cut point whose history fits, counting characters / 4 (the current turn always stays). */
function fittingStartByCharacters(
  contents: readonly Content[],
  starts: readonly number[],
  current: number,
  maxTokens: number,
): number {
  let tokens = 0;
  for (let i = contents.length - 1; i >= current; i--) tokens += estimateTokens(contents[i]!);
  let best = current;
  let next = current - 1;
  for (let s = starts.length - 1; s >= 0; s--) {
    const point = starts[s]!;
    if (point >= current) continue;
    for (; next >= point; next--) tokens += estimateTokens(contents[next]!);
    if (tokens > maxTokens) break;
    best = point;
  }
  return best;
}

/** The same with the model's counter: a binary search over the cut points (the count grows as history does). */
async function fittingStartByModel(
  contents: readonly Content[],
  starts: readonly number[],
  current: number,
  maxTokens: number,
  model: TokenCounter,
): Promise<number> {
  const candidates = starts.filter((s) => s < current);
  let lo = 0;
  let hi = candidates.length;
  // Invariant: candidates[hi..] fit (hi === length means none checked yet); candidates[..lo) do not.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const fits = (await model.countTokens(contents.slice(candidates[mid]))) <= maxTokens;
    if (fits) hi = mid;
    else lo = mid + 1;
  }
  return hi < candidates.length ? candidates[hi]! : current;
}

/**
 * The cut points where a stepped token window may start: the first of each stretch of history
 * worth half the window (by characters / 4, counted from the first content, so a point stays a
 * grid point as the session grows), and the current turn.
 */
function gridPoints(
  contents: readonly Content[],
  starts: readonly number[],
  current: number,
  maxTokens: number,
): number[] {
  const stretch = Math.max(1, Math.floor(maxTokens / 2));
  const points: number[] = [];
  let tokens = 0;
  let counted = 0;
  let lastBucket = -1;
  for (const point of starts) {
    for (; counted < point; counted++) tokens += estimateTokens(contents[counted]!);
    const bucket = Math.floor(tokens / stretch);
    if (point === current || bucket !== lastBucket) points.push(point);
    lastBucket = bucket;
  }
  return points;
}

/** Characters / 4 of a content as a provider receives it (JSON for calls, results and data). */
export function estimateTokens(content: Content): number {
  let characters = 0;
  for (const part of content.parts) characters += 'text' in part ? part.text.length : JSON.stringify(part).length;
  return Math.ceil(characters / 4);
}
