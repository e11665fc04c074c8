import { ConfigurationError } from '@troupe/core';

/** The first non-empty value among the given environment variables. */
export function fromEnv(...variables: readonly string[]): string | undefined {
  for (const name of variables) {
    const value = process.env[name];
    if (value !== undefined && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** The API key given as an option, else from the environment; a clear error when there is none. */
export function requireApiKey(
  explicit: string | undefined,
  variables: readonly string[],
  provider: string,
  factory: string,
): string {
  const key = explicit ?? fromEnv(...variables);
  if (key === undefined || key === '') {
    throw new ConfigurationError(
      `No ${provider} API key was found. Set the ${variables.join(' or ')} environment variable, or pass { apiKey } to ${factory}().`,
    );
  }
  return key;
}
