import { ConfigurationError } from '../errors.js';
import type { BaseLlm } from './base-llm.js';
import { OfflineModel } from './offline-model.js';

/** Makes a model from the part of a model string after the provider prefix. */
export type ModelFactory = (modelName: string) => BaseLlm;

interface Registration {
  /** A prefix such as `openai/`, or a pattern matched against the whole string. */
  match: string | RegExp;
  factory: ModelFactory;
}

const registrations: Registration[] = [];

/**
 * Registers a provider for model strings. A string prefix (`'openai/'`) is stripped before the
 * factory is called; a RegExp (`/^gemini-/`) passes the whole string. Later registrations win.
 */
export function registerModel(match: string | RegExp, factory: ModelFactory): void {
  registrations.unshift({ match, factory });
}

/** Resolves a model string such as `openai/gpt-4o-mini` or `offline` through the registry. */
export function resolveModel(name: string): BaseLlm {
  if (typeof name !== 'string' || name.length === 0) {
    throw new ConfigurationError(
      `A model string must be a non-empty string such as 'gemini-2.5-flash'; got ${JSON.stringify(name)}.`,
    );
  }
  if (name === 'offline') return new OfflineModel();
  for (const { match, factory } of registrations) {
    if (typeof match === 'string') {
      if (match.endsWith('/') ? name.startsWith(match) : name === match)
        return factory(match.endsWith('/') ? name.slice(match.length) : name);
    } else if (match.test(name)) {
      return factory(name);
    }
  }
  const known = registrations.map((r) => (typeof r.match === 'string' ? r.match : String(r.match))).join(', ');
  throw new ConfigurationError(
    `No model provider is registered for '${name}'. Registered: ${known || 'none'}. Import '@troupe/models' to register the providers, or pass a BaseLlm instance.`,
  );
}
