import type { Content } from '../events/content.js';
import type { Usage } from '../events/event.js';
import type { RequestCache } from './context-cache.js';

/** A tool as the model sees it. `parameters` is JSON Schema. */
export interface FunctionDeclaration {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}

/** Generation settings passed through to the provider. */
export interface GenerateContentConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  /** Provider-specific settings, passed through untouched. */
  [key: string]: unknown;
}

export interface LlmRequestConfig extends GenerateContentConfig {
  systemInstruction?: string;
  tools?: FunctionDeclaration[];
  /** JSON Schema the final answer must match. */
  responseSchema?: Record<string, unknown>;
}

/** What an agent sends to a model. */
export interface LlmRequest {
  model: string;
  contents: Content[];
  config: LlmRequestConfig;
  /**
   * Set when prompt caching is on for this agent (`contextCache`): adapters mark or create the
   * provider's cache from it. Absent, a request is sent exactly as without caching.
   */
  cache?: RequestCache;
}

/** One response (or one streamed chunk, with `partial`) from a model. */
export interface LlmResponse {
  content?: Content;
  partial?: boolean;
  turnComplete?: boolean;
  usage?: Usage;
  finishReason?: string;
  errorCode?: string;
  errorMessage?: string;
  /** The model that answered, when it differs from the one asked (routing, fallback). */
  model?: string;
  /**
   * Models tried before the one that answered and failed before their first chunk (RoutedLlm,
   * `fallbackModels`), in order; set on the first response only. Tracing shows each as a span.
   */
  failedAttempts?: FailedModelAttempt[];
}

/** A model call a RoutedLlm tried and gave up on before falling back to another model. */
export interface FailedModelAttempt {
  model: string;
  error: unknown;
  /** Milliseconds since the epoch. */
  startTime: number;
  endTime: number;
}
