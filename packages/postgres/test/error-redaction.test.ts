import { describe, expect, it } from 'vitest';
import { connectionLost } from '../src/pool.js';

// StorageError messages reach the session's error event and HTTP answers: a driver error that
// quotes the connection string must not carry its password there.
describe('StorageError messages carry no connection-string password', () => {
  it('masks a password the driver quoted', () => {
    const driverError = Object.assign(
      new Error('connect ECONNREFUSED for postgres://app:hunter2hunter2@db.internal:5432/app'),
      { code: 'ECONNREFUSED' },
    );
    const error = connectionLost("appending event 'e1' to session 's1'", driverError);
    expect(error.message).toContain('postgres://app:***@db.internal:5432/app');
    expect(error.message).not.toContain('hunter2hunter2');
    expect(error.cause).toBe(driverError);
  });
});
