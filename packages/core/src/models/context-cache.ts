import { createHash } from 'node:crypto';
import { ConfigurationError } from '../errors.js';

/** How long a provider keeps a cached prompt prefix after its last use. */
export type ContextCacheTtl = '5m' | '1h';

/**
 * Prompt caching (`contextCache` on the Runner, an LlmAgent or a model): long conversations resend
 * the same system prompt, tools and history every turn, and caching lets the provider bill that
 * prefix at a fraction of the price after its first use.
 *
 * - Anthropic: `cache_control` breakpoints on the system prompt, the tool list, the end of the
 *   earlier turns and the end of the request (at most 4).
 * - OpenAI: a `prompt_cache_key` per session and agent (OpenAI caches automatically; the key
 *   routes a conversation's turns to the same cache).
 * - Gemini: an explicit cache (`cachedContents`) of the system prompt, tools and earlier turns,
 *   made once the prefix is at least `minTokens` long, reused while the prefix stays the same and
 *   deleted when it is replaced.
 *
 * With caching on, a history window (`includeContents: { lastTurns | maxTokens }`) moves in steps
 * of half its size instead of every turn, so the cached prefix stays the same for several turns.
 */
export interface ContextCacheOptions {
  /**
   * How long the cache lives without use: Anthropic's ephemeral cache ttl, Gemini's cache ttl.
   * OpenAI decides for itself; a ttl on an OpenAI model is a ConfigurationError.
   * @default '5m'
   */
  ttl?: ContextCacheTtl;
  /**
   * Gemini: the smallest prefix (estimated tokens) worth an explicit cache. Gemini refuses caches
   * under its model's minimum (1,024 to 4,096 tokens), and a small cache costs more in storage than
   * it saves.
   * @default 4096
   */
  minTokens?: number;
}

/** `true` for the defaults, `false` to turn caching off where an outer level turned it on. */
export type ContextCache = boolean | ContextCacheOptions;

/** What a model request carries when caching is on (set by the LlmAgent; adapters read it). */
export interface RequestCache {
  /** Stable per session and agent, no ids in clear: OpenAI's `prompt_cache_key`, Gemini's cache name. */
  key: string;
  ttl: ContextCacheTtl;
  minTokens: number;
}

export const DEFAULT_CACHE_MIN_TOKENS = 4096;

/** The options in force, or undefined when caching is off. Checks what a user wrote. */
export function checkContextCache(owner: string, value: unknown): Required<ContextCacheOptions> | false | undefined {
  if (value === undefined) return undefined;
  if (value === false) return false;
  if (value === true) return { ttl: '5m', minTokens: DEFAULT_CACHE_MIN_TOKENS };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigurationError(
      `${owner}'s contextCache is ${JSON.stringify(value)}; use true, false or { ttl?: '5m' | '1h', minTokens?: number }.`,
    );
  }
  const { ttl, minTokens, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    throw new ConfigurationError(
      `${owner}'s contextCache has unknown option '${unknown[0]}'; the options are ttl ('5m' | '1h') and minTokens.`,
    );
  }
  if (ttl !== undefined && ttl !== '5m' && ttl !== '1h') {
    throw new ConfigurationError(`${owner}'s contextCache.ttl is ${JSON.stringify(ttl)}; use '5m' or '1h'.`);
  }
  if (minTokens !== undefined && (typeof minTokens !== 'number' || !Number.isInteger(minTokens) || minTokens < 1)) {
    throw new ConfigurationError(
      `${owner}'s contextCache.minTokens is ${JSON.stringify(minTokens)}; it must be a positive whole number of tokens.`,
    );
  }
  return { ttl: ttl ?? '5m', minTokens: minTokens ?? DEFAULT_CACHE_MIN_TOKENS };
}

/**
 * The cache key of one agent's conversation in one session: a hash, so the provider never sees
 * the user or session ids.
 */
export function contextCacheKey(appName: string, userId: string, sessionId: string, agentPath: string): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([appName, userId, sessionId, agentPath]))
    .digest('hex');
  return `troupe-${hash.slice(0, 40)}`;
}
