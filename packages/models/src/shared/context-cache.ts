import {
  checkContextCache,
  ConfigurationError,
  type ContextCacheOptions,
  type ContextCacheTtl,
  type LlmRequest,
} from '@troupe/core';

/** The caching one call makes, when it makes any. */
export interface CallCache {
  /** Per session and agent; absent when only the model turned caching on (no agent asked). */
  key: string | undefined;
  ttl: ContextCacheTtl;
  minTokens: number;
}

/** A model's own `contextCache` option, checked: what its provider does not support is an error. */
export type ModelCache = Required<ContextCacheOptions> | false | undefined;

/**
 * Checks a model's `contextCache` option. `supported` names the options the provider has; any
 * other option given is a ConfigurationError naming the provider, the option and why.
 */
export function checkModelCache(
  factory: string,
  provider: string,
  value: unknown,
  unsupported: Partial<Record<keyof ContextCacheOptions, string>> = {},
): ModelCache {
  const checked = checkContextCache(`${factory}()`, value);
  if (typeof value === 'object' && value !== null) {
    for (const [option, why] of Object.entries(unsupported)) {
      if ((value as Record<string, unknown>)[option] !== undefined) {
        throw new ConfigurationError(
          `${factory}() option contextCache.${option} is not supported by ${provider}: ${why} Remove it from the options.`,
        );
      }
    }
  }
  return checked;
}

/** What a call caches: the model's own option wins over the agent's (`request.cache`); false never caches. */
export function callCacheOf(request: LlmRequest, own: ModelCache): CallCache | undefined {
  if (own === false) return undefined;
  if (own) return { key: request.cache?.key, ttl: own.ttl, minTokens: own.minTokens };
  const asked = request.cache;
  return asked ? { key: asked.key, ttl: asked.ttl, minTokens: asked.minTokens } : undefined;
}
