import { InMemorySessionService } from '@troupe/core';
import { runRecordsContract, sessionServiceContract } from '@troupe/core/testing/contracts';

// In-memory storage belongs to one instance, so there is no second instance over the same storage.
sessionServiceContract('InMemorySessionService', async () => ({ service: new InMemorySessionService() }));
runRecordsContract('InMemorySessionService', async () => ({ service: new InMemorySessionService() }));
