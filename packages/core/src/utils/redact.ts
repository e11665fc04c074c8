import { ConfigurationError } from '../errors.js';

/**
 * Masks secrets in text that leaves the process's private memory: error messages stored in
 * sessions (readable by every client of an app), tool error responses the model reads, logs.
 */

/** What a masked value is replaced by. */
export const REDACTED = '***';

/** A function that masks the secrets in a text; see {@link createRedactor}. */
export type Redactor = (text: string) => string;

/** Options of {@link createRedactor}. */
export interface RedactorOptions {
  /**
   * Exact strings to mask wherever they appear (also URL-encoded): API keys, passwords, tokens the
   * program holds. Each needs at least 4 characters. @default []
   */
  secrets?: readonly string[];
  /**
   * The environment whose secret-named variables have their values masked: names ending in KEY,
   * TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL(S), e.g. `OPENAI_API_KEY`, `PGPASSWORD`. Read at
   * each call, so variables set later count too; values shorter than 6 characters are left alone.
   * `false` reads none. @default process.env
   */
  env?: Readonly<Record<string, string | undefined>> | false;
}

/** Environment variable names whose values are secrets. */
const SECRET_VARIABLE = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;
const MIN_SECRET = 4;
const MIN_ENV_SECRET = 6;

/** Words that name a secret in `name=value` and `name: value` text. */
const SECRET_NAME = String.raw`(?:token|key|secret|password|passwd|pwd|sig|signature|auth|authorization|credentials?)`;
/** Words after which a value is a secret only when it also looks like one (see TOKEN_VALUE). */
const LOOSE_NAME = String.raw`(?:token|key|api[_ -]?key|access[_ -]?key|secret|password)`;
/** A value that looks generated: 16+ characters of hex or base64(url) with a digit and a letter. */
const TOKEN_VALUE = String.raw`(?=[A-Za-z+/_.=-]{0,200}\d)(?=[\d+/_.=-]{0,200}[A-Za-z])[A-Za-z0-9+/_.=-]{16,}`;

/** Rules applied in order; every quantifier is bounded so that no text makes them slow. */
const RULES: ReadonlyArray<readonly [RegExp, string | ((match: string, ...groups: string[]) => string)]> = [
  // PEM private keys.
  [
    /-----BEGIN ([A-Z ]{0,40})PRIVATE KEY-----[\s\S]{0,8000}?-----END [A-Z ]{0,40}PRIVATE KEY-----/g,
    `-----BEGIN $1PRIVATE KEY-----${REDACTED}-----END $1PRIVATE KEY-----`,
  ],
  // scheme://user:password@host; the password runs to the last '@' of the authority.
  [/\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/?#@]{0,256}):[^\s/?#]{1,512}@/gi, `$1:${REDACTED}@`],
  // Authorization: Bearer xyz / Authorization=Basic xyz / "authorization": "token xyz"
  [
    /\b((?:proxy-)?authorization["']?\s{0,8}[:=]\s{0,8}["']?)(?:(bearer|basic|digest|token|bot|apikey)\s{1,8}|(?!(?:bearer|basic|digest|token|bot|apikey)\b))(?=[A-Za-z0-9])[^\s"'\x60,;}]{1,4096}/gi,
    (_match, prefix: string, scheme: string | undefined) => `${prefix}${scheme ? `${scheme} ` : ''}${REDACTED}`,
  ],
  // Bearer xyz anywhere else.
  [/\b(bearer)\s{1,8}(?=[A-Za-z0-9])[A-Za-z0-9._~+/=-]{8,4096}/gi, `$1 ${REDACTED}`],
  // Well-known key shapes, keeping their kind for diagnosis.
  [
    /\b(sk-ant-|sk-proj-|sk-|[sr]k_live_|[sr]k_test_|AIza|gh[pousr]_|github_pat_|xox[abposr]-|hf_|glpat-|AKIA)[A-Za-z0-9_-]{16,4096}/g,
    `$1${REDACTED}`,
  ],
  // JSON Web Tokens.
  [/\beyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{0,4096}/g, REDACTED],
  // name=value where the name ends in a secret word: ?token=, &api_key=, --password=, OPENAI_API_KEY=
  [
    new RegExp(
      String.raw`(^|[\s?&;,({\["'])([\w.-]{0,64}?${SECRET_NAME})=[^\s&#"'\x60<>,;)\]}]{0,4095}[^\s&#"'\x60<>,;)\]}.:!?]`,
      'gi',
    ),
    `$1$2=${REDACTED}`,
  ],
  // "password": "x", secret: x
  [
    new RegExp(
      String.raw`(["']?[\w.-]{0,64}?(?:password|passwd|pwd|secret)["']?\s{0,8}:\s{0,8}["']?)(?=[^\s"'\x60])[^\s"'\x60,;}]{1,4096}`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
  // "api_key": "<token>", token: <token>, "invalid api key <token>"
  [
    new RegExp(
      String.raw`(\b[\w.-]{0,64}?${LOOSE_NAME}["']?(?:\s{0,8}[:=]\s{0,8}|\s{1,8}(?:is\s{1,8}|was\s{1,8}|of\s{1,8})?)["'\x60]?)${TOKEN_VALUE}`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
];

/**
 * Makes a redactor that masks, in this order: the configured `secrets` and the values of
 * secret-named environment variables; PEM private keys; passwords in URLs
 * (`postgres://user:***@host`); `Authorization` values and `Bearer` tokens; API-key-shaped values
 * (`sk-…`, `sk-ant-…`, `AIza…`, `ghp_…`, `xox…-`, `AKIA…`, JWTs), keeping their prefix; values of
 * secret-named parameters (`?token=`, `&api_key=`, `--password=`, `"secret": …`); and long
 * hex/base64 values after the words key, token or secret. Throws {@link ConfigurationError} for a
 * secret shorter than 4 characters.
 *
 * @example
 * const redact = createRedactor({ secrets: [process.env.DB_PASSWORD!] });
 * redact('cannot connect to postgres://app:hunter22@db:5432/app'); // 'cannot connect to postgres://app:***@db:5432/app'
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const configured = options.secrets ?? [];
  const problem = secretsProblem(configured);
  if (problem) throw new ConfigurationError(`createRedactor: ${problem}`);
  const fixed = withEncoded(configured);
  const env = options.env ?? (typeof process === 'undefined' ? false : process.env);
  return (text) => {
    if (typeof text !== 'string' || text === '') return text;
    let out = maskAll(text, env === false ? fixed : [...fixed, ...withEncoded(envSecrets(env))]);
    for (const [pattern, replacement] of RULES)
      out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
    return out;
  };
}

const defaultRedactor = createRedactor();

/**
 * Masks secrets in `text` with the default rules and the secret-named environment variables (see
 * {@link createRedactor}). For error messages built by stores, providers and plugins.
 *
 * @example
 * redact('HTTP 401 for Authorization: Bearer abc123def456ghi789'); // 'HTTP 401 for Authorization: Bearer ***'
 */
export function redact(text: string): string {
  return defaultRedactor(text);
}

/**
 * What is wrong with a list of secrets, for the message of whoever took it as an option; undefined
 * when it is usable. Never shows a value: it is a secret.
 */
export function secretsProblem(secrets: unknown): string | undefined {
  if (!Array.isArray(secrets))
    return `'secrets' must be a list of strings; got ${secrets === null ? 'null' : typeof secrets}. Pass e.g. [process.env.DB_PASSWORD!].`;
  for (const [i, secret] of (secrets as unknown[]).entries()) {
    if (typeof secret !== 'string')
      return `'secrets[${i}]' must be a string; got ${secret === null ? 'null' : typeof secret}. Remove it or pass the secret's text.`;
    if (secret.length < MIN_SECRET)
      return `'secrets[${i}]' has ${secret.length} characters; a secret needs at least ${MIN_SECRET}, or masking it would garble every message. Remove it.`;
  }
  return undefined;
}

/** Values of the secret-named variables of `env`. */
function envSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  const values: string[] = [];
  for (const name in env) {
    const value = env[name];
    if (value !== undefined && value.length >= MIN_ENV_SECRET && SECRET_VARIABLE.test(name)) values.push(value);
  }
  return values;
}

/** The secrets and their URL-encoded forms, longest first (so a secret containing another is masked whole). */
function withEncoded(secrets: readonly string[]): string[] {
  const all = new Set<string>();
  for (const secret of secrets) {
    all.add(secret);
    all.add(encodeURIComponent(secret));
  }
  return [...all].sort((a, b) => b.length - a.length);
}

function maskAll(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}
