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
