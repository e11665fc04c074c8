import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '@troupe/core';
import { PostgresSessionService } from '../src/index.js';
import { expectRetryableStorageError } from './fault-load.js';
import { PG_URL, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

describePostgres('PostgresSessionService.checkHealth on a running server', () => {
  const schema = uniqueSchema('health');
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  it('resolves when SELECT 1 works; a closed service refuses', async () => {
    const service = new PostgresSessionService({ connectionString: PG_URL, schema });
    await expect(service.checkHealth()).resolves.toBeUndefined();
    await service.close();
    await expect(service.checkHealth()).rejects.toThrow(/is closed/);
  });
});

describe('PostgresSessionService without a reachable server', () => {
  const key = { appName: 'app', userId: 'u', sessionId: 's' };

  it('connection refused: every call, the first included, fails with a StorageError that keeps the cause', async () => {
    const port = await closedPort();
    const service = new PostgresSessionService({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` });
    try {
      const calls: [string, () => Promise<unknown>][] = [
        ['createSession', () => service.createSession({ appName: 'app', userId: 'u' })],
        ['getSession', () => service.getSession(key)],
        ['listSessions', () => service.listSessions({ appName: 'app', userId: 'u' })],
        ['deleteSession', () => service.deleteSession(key)],
        ['leaseSession', () => service.leaseSession({ ...key, owner: 'o', ttlMs: 1000 })],
        ['checkHealth', () => service.checkHealth()],
      ];
      for (const [name, call] of calls) {
        const error = await call().then(
          () => new Error(`${name} resolved`),
          (e: unknown) => e,
        );
        expectRetryableStorageError(error);
        expect((error as StorageError).message, name).toMatch(/ECONNREFUSED/);
        expect(((error as StorageError).cause as { code?: string }).code, name).toBe('ECONNREFUSED');
      }
    } finally {
      await service.close();
    }
  });

  it('a server that accepts connections but never answers: checkHealth gives up after healthTimeoutMs, calls after connectTimeoutMs', async () => {
    const silent = await silentServer();
    const service = new PostgresSessionService({
      connectionString: `postgres://postgres@127.0.0.1:${silent.port}/test`,
      healthTimeoutMs: 300,
      connectTimeoutMs: 400,
    });
    try {
      let started = Date.now();
      const health = await service.checkHealth().catch((e: unknown) => e);
      expect(health).toBeInstanceOf(StorageError);
      expect((health as Error).message).toMatch(/did not answer SELECT 1 within 300 ms/);
      expect(Date.now() - started).toBeLessThan(2000);

      started = Date.now();
      const read = await service.getSession(key).catch((e: unknown) => e);
      expectRetryableStorageError(read);
      expect((read as Error).message).toMatch(/timeout/i);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await service.close();
      await silent.close();
    }
  });
});

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP server that accepts connections and never sends a byte, like a hung database host. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
