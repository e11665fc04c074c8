import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Vitest global setup: before any test runs, one line for each group of suites that will be skipped
 * because a service they need is not there, with the command that brings it. Outside CI such suites
 * skip (a developer can run the rest without PostgreSQL or Redis); in CI (CI=true) they run and fail,
 * so nothing is printed there. The checks mirror each suite's own (pg-test-env, redis-server,
 * troupe-web, the ADK interop tests).
 */
export default function reportSkippedServices(): void {
  if (/^(1|true|yes)$/i.test(process.env.CI ?? '')) return;
  for (const line of skippedSuites()) console.warn(`[troupe tests] ${line}`);
}

export function skippedSuites(env: NodeJS.ProcessEnv = process.env): string[] {
  const skipped: string[] = [];
  if (!env.TROUPE_TEST_PG_URL) {
    skipped.push(
      'PostgreSQL suites skipped: TROUPE_TEST_PG_URL is unset. Run them with TROUPE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npm test',
    );
  }
  if (!installed(env.TROUPE_TEST_REDIS_SERVER ?? 'redis-server')) {
    skipped.push('Redis (queue) suites skipped: redis-server is not installed (apt-get install redis-server).');
  }
  if (!existsSync('/usr/bin/chromium')) {
    skipped.push('Dev UI browser suites skipped: /usr/bin/chromium is missing (apt-get install chromium).');
  }
  const adk = fileURLToPath(new URL('interop/adk-js/node_modules/@google/adk/package.json', import.meta.url));
  if (!existsSync(adk)) {
    skipped.push('ADK JS interoperability suites skipped: run npm ci --prefix test/interop/adk-js');
  }
  return skipped;
}

function installed(bin: string): boolean {
  try {
    execFileSync(bin, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
