import { createHash } from 'node:crypto';
import type { Content as GeminiContent, GenerateContentConfig, GoogleGenAI, Tool } from '@google/genai';
import type { CallCache } from '../shared/context-cache.js';

/** A cache is not used in its last seconds: the request could reach Gemini after it expired. */
const EXPIRY_MARGIN_MS = 10_000;

const TTL_SECONDS = { '5m': 300, '1h': 3600 } as const;

/** One live `cachedContents` entry this model created. */
interface Entry {
  name: string;
  /** The hash of the model, system instruction, tools and tool config it holds. */
  base: string;
  /** How many leading contents it holds, and their chained hash. */
  count: number;
  prefix: string;
  expiresAt: number;
}

/** The generateContent parameters of one call, with or without a cache. */
export interface CachedCall {
  contents: GeminiContent[];
  config: GenerateContentConfig;
  /** Tokens written to a cache this call created (the call's `cacheWriteTokens`). */
  writeTokens?: number;
}

const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Gemini's explicit prompt caching: the system instruction, tools and the contents before the
 * current user turn go into a `cachedContents` resource once they are at least `minTokens` long;
 * later calls name it (`cachedContent`) and send only the contents after it. One entry per cache
 * key (per session and agent), replaced when its prefix no longer matches or the uncached part
 * has grown past `minTokens`.
 */
export class GeminiContextCaches {
  private readonly entries = new Map<string, Entry>();
  /** Prefixes Gemini refused to cache (too small for the model, or any error): not tried again. */
  private readonly refused = new Set<string>();

  constructor(private readonly model: string) {}

  /** The parameters to send: cached when the prefix is worth it and a cache can be had. */
  async prepare(
    client: GoogleGenAI,
    plain: { contents: GeminiContent[]; config: GenerateContentConfig },
    cache: CallCache,
    abortSignal: AbortSignal | undefined,
  ): Promise<CachedCall> {
    const { contents, config } = plain;
    const { systemInstruction, tools, toolConfig, ...rest } = config;
    const boundary = currentTurnStart(contents);
    const prefixContents = contents.slice(0, boundary);
    const fixed = JSON.stringify([systemInstruction ?? null, tools ?? null, toolConfig ?? null]);
    if (estimateTokens(fixed + JSON.stringify(prefixContents)) < cache.minTokens) return plain;

    const base = hash(`${this.model}\n${fixed}`);
    const chain = chainedHashes(base, prefixContents);
    const key = cache.key ?? base;
    const now = Date.now();
    const held = this.entries.get(key);
    const usable =
      held !== undefined &&
      held.base === base &&
      held.count <= boundary &&
      chain[held.count] === held.prefix &&
      held.expiresAt - EXPIRY_MARGIN_MS > now
        ? held
        : undefined;
    const cached = (entry: Entry, writeTokens?: number): CachedCall => ({
      contents: contents.slice(entry.count),
      config: { ...rest, cachedContent: entry.name },
      ...(writeTokens === undefined ? {} : { writeTokens }),
    });

    const grown =
      usable !== undefined && estimateTokens(JSON.stringify(contents.slice(usable.count, boundary))) >= cache.minTokens;
    if (usable && !grown) return cached(usable);
    const wanted = chain[boundary]!;
    if (this.refused.has(wanted)) return usable ? cached(usable) : plain;

    let created: { name: string; expiresAt: number; tokens: number | undefined };
    try {
      const response = await client.caches.create({
        model: this.model,
        config: {
          contents: prefixContents,
          ...(systemInstruction === undefined ? {} : { systemInstruction }),
          // Declarations and provider tools (googleSearch...) as built for the wire: never SDK callables.
          ...(tools === undefined ? {} : { tools: tools as Tool[] }),
          ...(toolConfig === undefined ? {} : { toolConfig }),
          ttl: `${TTL_SECONDS[cache.ttl]}s`,
          displayName: cache.key ?? `troupe-${base.slice(0, 40)}`,
          ...(abortSignal ? { abortSignal } : {}),
        },
      });
      if (typeof response.name !== 'string' || response.name === '') throw new Error('the cache has no name');
      const expireTime = response.expireTime === undefined ? Number.NaN : Date.parse(response.expireTime);
      created = {
        name: response.name,
        expiresAt: Number.isNaN(expireTime) ? now + TTL_SECONDS[cache.ttl] * 1000 : expireTime,
        tokens: response.usageMetadata?.totalTokenCount,
      };
    } catch {
      // Too small for the model's minimum, or any other refusal: the call goes on without it.
      if (abortSignal?.aborted) throw abortSignal.reason;
      this.refused.add(wanted);
      return usable ? cached(usable) : plain;
    }
    const entry: Entry = { name: created.name, base, count: boundary, prefix: wanted, expiresAt: created.expiresAt };
    this.entries.set(key, entry);
    if (held) await deleteQuietly(client, held.name);
    return cached(entry, created.tokens ?? 0);
  }

  /** Deletes every cache this model holds (those not deleted expire by their ttl). */
  async deleteAll(client: GoogleGenAI): Promise<void> {
    const names = [...this.entries.values()].map((entry) => entry.name);
    this.entries.clear();
    await Promise.all(names.map((name) => deleteQuietly(client, name)));
  }

  /** Whether this model holds a cache (so deleting needs the client). */
  get size(): number {
    return this.entries.size;
  }
}

async function deleteQuietly(client: GoogleGenAI, name: string): Promise<void> {
  try {
    await client.caches.delete({ name });
  } catch {
    // Already expired or deleted: it goes away by its ttl either way.
  }
}

/** Where the current user turn starts: the last user content that is not only function responses. */
function currentTurnStart(contents: readonly GeminiContent[]): number {
  for (let i = contents.length - 1; i >= 0; i--) {
    const content = contents[i]!;
    if (content.role === 'user' && !(content.parts ?? []).every((part) => part.functionResponse !== undefined))
      return i;
  }
  return 0;
}

/** `result[n]` identifies the first n contents (after the model, system instruction and tools). */
function chainedHashes(base: string, contents: readonly GeminiContent[]): string[] {
  const result = [base];
  for (const content of contents) result.push(hash(`${result.at(-1)!}\n${JSON.stringify(content)}`));
  return result;
}

/** Core's estimate: about four characters of JSON per token. */
function estimateTokens(json: string): number {
  return Math.ceil(json.length / 4);
}
