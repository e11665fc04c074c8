import { InMemorySessionService } from '@troupe/core';
import { sessionServiceContract } from '../../../../test/contracts/session-service.contract.js';

// In-memory storage belongs to one instance, so there is no second instance over the same storage.
sessionServiceContract('InMemorySessionService', async () => ({ service: new InMemorySessionService() }));
