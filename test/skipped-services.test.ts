import { describe, expect, it } from 'vitest';
import { skippedSuites } from './skipped-services.js';

describe('the skipped-suites line of npm test', () => {
  it('says in one line why the PostgreSQL suites are skipped and how to run them', () => {
    const lines = skippedSuites({});
    const pg = lines.filter((line) => line.includes('PostgreSQL'));
    expect(pg).toHaveLength(1);
    expect(pg[0]).toContain('TROUPE_TEST_PG_URL is unset');
    expect(pg[0]).toContain('TROUPE_TEST_PG_URL=postgres://');
  });

  it('says nothing about PostgreSQL when TROUPE_TEST_PG_URL is set', () => {
    expect(skippedSuites({ TROUPE_TEST_PG_URL: 'postgres://x@127.0.0.1/test' }).join('\n')).not.toContain('PostgreSQL');
  });

  it('names redis-server when the binary given is missing', () => {
    const lines = skippedSuites({ TROUPE_TEST_PG_URL: 'x', TROUPE_TEST_REDIS_SERVER: '/nonexistent/redis-server' });
    expect(lines.some((line) => line.includes('redis-server is not installed'))).toBe(true);
  });
});
