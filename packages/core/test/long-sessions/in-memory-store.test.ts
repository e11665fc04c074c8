import { InMemorySessionService } from '@troupe/core';
import { longSessionsContract } from '@troupe/core/testing/contracts';

// One store stands for "the same storage": each open() hands it out again.
const service = new InMemorySessionService();
longSessionsContract('InMemorySessionService', async () => ({ service, close: async () => undefined }));
