import { afterAll, beforeAll } from 'vitest';
import { runRecordsContract, sessionServiceContract } from '@troupe/core/testing/contracts';
import { PostgresSessionService } from '../src/index.js';
import { PG_URL, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

describePostgres('PostgresSessionService on a real server', () => {
  // One schema for the whole file: the contract makes fresh app names per test, so tests never meet.
  const schema = uniqueSchema('contract');
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  const open = async () => {
    const service = new PostgresSessionService({ connectionString: PG_URL, schema });
    return { service, close: () => service.close() };
  };
  // A second service with its own pool over the same database and schema, already connected, as
  // in a second process that is up: the lease cases give it 100 ms, and opening a connection
  // alone takes longer than that on a busy machine (PostgreSQL starts a backend per connection).
  const openSecond = async () => {
    const service = new PostgresSessionService({ connectionString: PG_URL, schema });
    await service.listSessions({ appName: 'warm-up', userId: 'warm-up' });
    return { service, close: () => service.close() };
  };

  sessionServiceContract('PostgresSessionService', open, { openSecond });
  runRecordsContract('PostgresSessionService', open, { openSecond });
});
