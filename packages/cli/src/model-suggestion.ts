/**
 * Model strings people type, for "did you mean" hints: the providers `@troupe/models` registers
 * and well-known models of each. Not a list of what works (any name after a provider prefix is
 * passed to the provider); only what a mistyped name is compared with.
 */
export const KNOWN_MODELS: readonly string[] = [
  'offline',
  'openai/gpt-4o',
  'openai/gpt-4o-mini',
  'openai/gpt-4.1',
  'openai/gpt-4.1-mini',
  'openai/o3-mini',
  'gemini-2.5-flash',
  'gemini-2.5-pro',
  'gemini-2.0-flash',
  'anthropic/claude-sonnet-4-5',
  'anthropic/claude-opus-4-1',
  'anthropic/claude-3-5-haiku-latest',
  'ollama/llama3.2',
];

/** The provider prefixes of `@troupe/models`. */
const PROVIDER_PREFIXES: readonly string[] = [
  'openai/',
  'openai-responses/',
  'gemini/',
  'anthropic/',
  'ollama/',
  'openai-compatible/',
];

/**
 * The model string closest to a name that resolved to no provider: the known model the name is
 * the tail of (`gpt-4o` → `openai/gpt-4o`), the name with its mistyped provider fixed
 * (`opnai/gpt-4o` → `openai/gpt-4o`), or the known model within a few typing mistakes. Undefined
 * when nothing is close.
 */
export function suggestModel(name: string): string | undefined {
  const lower = name.toLowerCase();
  const tail = KNOWN_MODELS.find((known) => known.endsWith(`/${lower}`));
  if (tail) return tail;
  const slash = lower.indexOf('/');
  if (slash > 0) {
    const provider = lower.slice(0, slash + 1);
    const prefix = closest(provider, PROVIDER_PREFIXES, 3);
    if (prefix) return `${prefix}${name.slice(slash + 1)}`;
  }
  return closest(lower, KNOWN_MODELS, Math.max(2, Math.floor(lower.length / 4)));
}

function closest(word: string, candidates: readonly string[], maxDistance: number): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance: the insertions, deletions and substitutions that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
