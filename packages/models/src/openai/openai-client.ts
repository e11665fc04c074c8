import type OpenAI from 'openai';
import { loadSdk, sdkClientOptions, type SdkConnectionOptions } from '../shared/sdk.js';

/** The connection options both OpenAI adapters (Chat Completions and Responses) take. */
export interface OpenAiConnection extends SdkConnectionOptions {
  organization?: string;
  project?: string;
}

/** An `openai` SDK client (loaded on first use) for `apiKey` and the connection options. */
export async function openOpenAiClient(apiKey: string, options: OpenAiConnection, label: string): Promise<OpenAI> {
  const { default: OpenAIClient } = await loadSdk('openai', label, () => import('openai'));
  return new OpenAIClient({
    ...sdkClientOptions(apiKey, options),
    ...(options.organization === undefined ? {} : { organization: options.organization }),
    ...(options.project === undefined ? {} : { project: options.project }),
  });
}

/** Sets the call's `prompt_cache_key`, which routes a conversation to its cache; a key the user put in the body wins. */
export function withPromptCacheKey(body: object, key: string | undefined): void {
  if (key !== undefined && !('prompt_cache_key' in body)) Object.assign(body, { prompt_cache_key: key });
}
