import { afterAll, beforeAll } from 'vitest';
import { persistentRunnerContract } from '@troupe/core/testing/contracts';
import { PostgresSessionService } from '../src/index.js';
import { PG_URL, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

describePostgres('PostgresSessionService under the Runner', () => {
  const schema = uniqueSchema('runner');
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  // Every open() is a new service with its own pool over the same schema: what a new process would do.
  persistentRunnerContract('PostgresSessionService', async () => {
    const service = new PostgresSessionService({ connectionString: PG_URL, schema });
    return { service, close: () => service.close() };
  });
});
