import { InMemorySessionService } from '@troupe/core';
import { longSessionsContract } from '../../../../test/contracts/long-sessions.contract.js';

// One store stands for "the same storage": each open() hands it out again.
const service = new InMemorySessionService();
longSessionsContract('InMemorySessionService', async () => ({ service, close: async () => undefined }));
