import { afterEach, beforeEach } from 'vitest';
import { FakeServer } from './fake-server.js';

/**
 * Starts a fresh {@link FakeServer} before each test of the enclosing `describe` and closes it after;
 * `use` receives each one (the suites keep it in a `let server`, which their tests read).
 */
export function serverPerTest(use: (server: FakeServer) => void): void {
  let server: FakeServer | undefined;
  beforeEach(async () => {
    server = await FakeServer.start();
    use(server);
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
}
