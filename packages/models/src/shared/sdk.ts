import { ConfigurationError } from '@troupe/core';

/**
 * Imports a provider SDK on first use. The SDKs are optional peer dependencies: a missing one
 * becomes a {@link ConfigurationError} that says which package to install.
 */
export async function loadSdk<T>(packageName: string, provider: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissingModule(error, packageName)) {
      throw new ConfigurationError(
        `The ${provider} models of @troupe/models need the '${packageName}' package, which is not installed. Install it in your project: npm install ${packageName}`,
      );
    }
    throw error;
  }
}

function isMissingModule(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  const missing =
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    /Cannot find (?:package|module)|Failed to (?:load|resolve)/i.test(text);
  return missing && text.includes(packageName);
}

/** The connection options a user gives the Anthropic and OpenAI adapters alike. */
export interface SdkConnectionOptions {
  baseURL?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * The constructor options the Anthropic and OpenAI SDK clients share: the key, no retries of the
 * SDK's own (the adapter's retry policy decides), and the connection options the user set, under
 * the SDKs' names.
 */
export function sdkClientOptions(
  apiKey: string,
  options: SdkConnectionOptions,
): { apiKey: string; maxRetries: 0; baseURL?: string; defaultHeaders?: Record<string, string>; timeout?: number } {
  return {
    apiKey,
    maxRetries: 0,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.headers === undefined ? {} : { defaultHeaders: options.headers }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  };
}
