import type { LlmRequestConfig } from '@troupe/core';
import { isRecord } from './tool-arguments.js';

/** Config keys every adapter maps itself; anything else is provider-specific. */
const PORTABLE_KEYS = new Set([
  'systemInstruction',
  'tools',
  'responseSchema',
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'seed',
  'providerOptions',
]);

/**
 * Provider-specific request fields from `config.providerOptions[provider]`, merged over the
 * adapter's own defaults, e.g. `{ providerOptions: { openai: { reasoning_effort: 'low' } } }`.
 */
export function providerOptionsOf(
  config: LlmRequestConfig,
  provider: string,
  defaults: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const all = config.providerOptions;
  const own = isRecord(all) && isRecord(all[provider]) ? all[provider] : {};
  return { ...defaults, ...own };
}

/** The config keys no adapter maps (Gemini takes them as they are: thinkingConfig, safetySettings, ...). */
export function unmappedConfig(config: LlmRequestConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config))
    if (!PORTABLE_KEYS.has(key) && value !== undefined) out[key] = value;
  return out;
}
