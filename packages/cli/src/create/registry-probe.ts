/** What the registry said about a package version: there, not there, or no answer in time. */
export type RegistryAnswer = 'published' | 'missing' | 'unreachable';

/** npm's public registry, used when `npm_config_registry` (set by npm and npx, or by the user) is absent. */
export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

/** How long `troupe create` waits for the registry before it packs the local packages instead. */
export const PROBE_TIMEOUT_MS = 3000;

/**
 * Asks the registry whether `name@version` is published, giving up after `timeoutMs`. Uses the
 * abbreviated metadata document npm itself installs from, so the answer matches what
 * `npm install` would find.
 */
export async function probeRegistry(
  name: string,
  version: string,
  options: { registry?: string; timeoutMs?: number } = {},
): Promise<RegistryAnswer> {
  const registry = (options.registry ?? DEFAULT_REGISTRY).replace(/\/*$/, '/');
  const url = `${registry}${name.replace('/', '%2f')}`;
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/vnd.npm.install-v1+json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? PROBE_TIMEOUT_MS),
    });
    if (response.status === 404) return 'missing';
    if (!response.ok) return 'unreachable';
    const document = (await response.json()) as { versions?: Record<string, unknown> };
    return document.versions?.[version] === undefined ? 'missing' : 'published';
  } catch {
    // A refused connection, a DNS failure, a timeout or a body that is not JSON: no usable answer.
    return 'unreachable';
  }
}
