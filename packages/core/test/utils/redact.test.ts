import { describe, expect, it } from 'vitest';
import { ConfigurationError, createRedactor, redact } from '../../src/index.js';

const plain = createRedactor({ env: false });

describe('redact', () => {
  it('masks passwords in URLs, keeping the user, host and path', () => {
    expect(plain('connect postgres://app:hunter22@db.internal:5432/app failed')).toBe(
      'connect postgres://app:***@db.internal:5432/app failed',
    );
    expect(plain('redis://:s3cr3t@127.0.0.1:6379/0')).toBe('redis://:***@127.0.0.1:6379/0');
    expect(plain('https://u:p@ss:word@example.com/mcp')).toBe('https://u:***@example.com/mcp');
    // Ports and paths are not passwords.
    expect(plain('http://127.0.0.1:8080/a@b and mail me@example.com')).toBe(
      'http://127.0.0.1:8080/a@b and mail me@example.com',
    );
  });

  it('masks secret query parameters and name=value pairs', () => {
    expect(plain('GET https://api.example.com/v1?token=abc&x=1&api_key=zzz#top')).toBe(
      'GET https://api.example.com/v1?token=***&x=1&api_key=***#top',
    );
    expect(plain('https://h/p?key=AAA&secret=BBB&password=CCC&access_token=DDD&X-Amz-Signature=EEE')).toBe(
      'https://h/p?key=***&secret=***&password=***&access_token=***&X-Amz-Signature=***',
    );
    expect(plain('node server.js --api-key=abc --password=pw --port=3')).toBe(
      'node server.js --api-key=*** --password=*** --port=3',
    );
    expect(plain('OPENAI_API_KEY=whatever was set')).toBe('OPENAI_API_KEY=*** was set');
    // Punctuation and quotes after the value are kept, and masking twice changes nothing.
    expect(plain('server `node s.mjs --api-key=abc` exited')).toBe('server `node s.mjs --api-key=***` exited');
    expect(plain(plain('server `node s.mjs --api-key=abc` exited'))).toBe('server `node s.mjs --api-key=***` exited');
    expect(plain('failed at http://h/mcp?api_key=abc: refused. See ?token=xyz.')).toBe(
      'failed at http://h/mcp?api_key=***: refused. See ?token=***.',
    );
    // Words that only contain a secret word are left alone.
    expect(plain('maxTokens=100 author=bob design=flat')).toBe('maxTokens=100 author=bob design=flat');
  });

  it('masks Authorization values and Bearer tokens', () => {
    expect(plain('request had Authorization: Bearer abc123def456ghi789')).toBe('request had Authorization: Bearer ***');
    expect(plain('{"authorization":"Basic dXNlcjpwYXNz"}')).toBe('{"authorization":"Basic ***"}');
    expect(plain('Authorization=xyz')).toBe('Authorization=***');
    expect(plain('the server said: Bearer abc123def456ghi789 is expired')).toBe(
      'the server said: Bearer *** is expired',
    );
    // Placeholders in hints stay readable.
    expect(plain("Give { Authorization: 'Bearer <token>' } or 'Bearer ${API_TOKEN}'")).toBe(
      "Give { Authorization: 'Bearer <token>' } or 'Bearer ${API_TOKEN}'",
    );
  });

  it('masks API-key-shaped values, keeping their kind', () => {
    const keys = {
      openai: 'sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8x',
      anthropic: 'sk-ant-api03-Zy1xWv2uTs3rQp4oNm5l',
      google: 'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv',
      github: 'ghp_1234567890abcdefghijABCDEFGHIJ',
      slack: 'xoxb-123456789012-abcdefghijkl',
    };
    const text = Object.values(keys).join(' | ');
    expect(plain(text)).toBe('sk-proj-*** | sk-ant-*** | AIza*** | ghp_*** | xoxb-***');
    expect(plain('header x-api-key: 0123456789abcdef0123456789abcdef')).toBe('header x-api-key: ***');
    expect(plain('invalid api key 9f86d081884c7d659a2feaa0c55ad015 given')).toBe('invalid api key *** given');
    expect(plain('"secret": "plainword"')).toBe('"secret": "***"');
    expect(plain('key file:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nend')).toBe(
      'key file:\n-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----\nend',
    );
    expect(
      plain('jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'),
    ).toBe('jwt ***');
  });

  it('leaves ordinary error messages alone', () => {
    const messages = [
      "State key 'topic' is not set. Set it before the run or write {topic?} to make it optional.",
      "Model 'gpt-4o' answered agent 'writer' with error 429: rate limit. The rate limit or quota was reached.",
      'The run took longer than runConfig.timeoutMs (5000 ms) and was stopped.',
      "Unknown key 'token_limit' in agent 'a': use max_tokens.",
      'Session s-1 has 2 unanswered interrupt(s) (i-1, i-2).',
    ];
    for (const message of messages) expect(plain(message)).toBe(message);
  });

  it('masks configured secrets and their URL-encoded forms, longest first', () => {
    const redactor = createRedactor({ secrets: ['p@ss w0rd', 'p@ss w0rd and more'], env: false });
    expect(redactor('said p@ss w0rd and more, then p%40ss%20w0rd')).toBe('said ***, then ***');
  });

  it('masks values of secret-named environment variables, read at each call', () => {
    const env: Record<string, string> = { MY_SERVICE_TOKEN: 'opaque-value-1', HOME: '/home/someone', SHORT_KEY: 'abc' };
    const redactor = createRedactor({ env });
    expect(redactor('got opaque-value-1 from /home/someone, abc')).toBe('got *** from /home/someone, abc');
    env.DB_PASSWORD = 'later-set-pw';
    expect(redactor('login later-set-pw')).toBe('login ***');
    const name = 'TROUPE_TEST_REDACT_SECRET';
    process.env[name] = 'from-process-env';
    try {
      expect(redact('value from-process-env here')).toBe('value *** here');
    } finally {
      delete process.env[name];
    }
  });

  it('rejects unusable secrets without showing them', () => {
    expect(() => createRedactor({ secrets: ['ab'] })).toThrow(ConfigurationError);
    expect(() => createRedactor({ secrets: ['ab'] })).toThrow(
      "createRedactor: 'secrets[0]' has 2 characters; a secret needs at least 4",
    );
    expect(() => createRedactor({ secrets: [42 as unknown as string] })).toThrow(
      "'secrets[0]' must be a string; got number",
    );
  });

  // A guard against catastrophic backtracking (ReDoS) with no clock in it: speed goals live in bench/.
  // Masking all of this takes seconds, even on a loaded machine; a rule whose quantifier lost its
  // bound turns quadratic here (the URL rule unbounded: about two minutes on the 'a.' input alone),
  // and exponential backtracking never returns. The generous timeout below is what fails them.
  it('stays fast on long hostile input', () => {
    const inputs = [
      'a'.repeat(400_000),
      'a.'.repeat(200_000),
      'key '.repeat(100_000),
      'http://x:'.repeat(40_000),
      '?token='.repeat(60_000),
      'Bearer '.repeat(60_000),
      '-----BEGIN PRIVATE KEY-----'.repeat(20_000),
    ];
    // None of it is a secret but the ?token= values.
    for (const input of inputs) expect(plain(input) === input, input.slice(0, 12)).toBe(!input.startsWith('?token='));
  }, 60_000);
});
