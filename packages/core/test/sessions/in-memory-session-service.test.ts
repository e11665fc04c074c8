import { InMemorySessionService } from '@troupe/core';
import { runRecordsContract } from '../../../../test/contracts/run-records.contract.js';
import { sessionServiceContract } from '../../../../test/contracts/session-service.contract.js';

// In-memory storage belongs to one instance, so there is no second instance over the same storage.
sessionServiceContract('InMemorySessionService', async () => ({ service: new InMemorySessionService() }));
runRecordsContract('InMemorySessionService', async () => ({ service: new InMemorySessionService() }));
