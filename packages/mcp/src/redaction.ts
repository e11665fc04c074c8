import { createRedactor, REDACTED, type Redactor } from '@troupe/core';

/** Names of flags, environment variables and headers whose values are secrets (`--db-pass`, `API_KEY`). */
const SECRET_NAME = /(?:key|token|secret|pass|password|passwd|pwd|pw|auth|authorization|cookie|credentials?)$/i;
/** Secrets shorter than this are not masked by value (masking "1" would garble every message). */
const MIN_SECRET = 4;
/** A long or short flag, alone (`--db-pass`, `-p`) or with its value (`--db-pass=x`). */
const FLAG = /^(--?[\w.-]+)(?:=([\s\S]*))?$/;
/** The password of a URL: `scheme://user:password@host`. */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:([^\s/?#@]+)@/i;
/** A password in a key=value connection string: `Server=db;Password=x;`, `host=db password=x`. */
const KEYWORD_PASSWORD = /(?:^|[\s;&?])(?:password|passwd|pwd)\s*=\s*('[^']*'|"[^"]*"|[^\s;&]+)/gi;

/**
 * The redactor of one server's messages and stderr: core's rules (URL passwords, bearer tokens,
 * API-key shapes, secret-named environment variables of this process) plus the values of the
 * connection's own secret-named `env` entries and `headers`, and the secrets of its command line
 * ({@link commandLineSecrets}), wherever they appear (a server echoing its arguments to stderr).
 */
export function connectionRedactor(
  env: Readonly<Record<string, string>> | undefined,
  headers: Readonly<Record<string, string>> | undefined,
  args: readonly string[] = [],
): Redactor {
  const secrets: string[] = [];
  for (const map of [env, headers]) {
    for (const [name, value] of Object.entries(map ?? {})) {
      if (SECRET_NAME.test(name)) secrets.push(...secretParts(value));
    }
  }
  secrets.push(...commandLineSecrets(args).filter((secret) => secret.length >= MIN_SECRET));
  return createRedactor({ secrets });
}

/**
 * The values on a command line that are secrets by their place: the value of a secret-named flag,
 * given as `--db-pass=VALUE` or as the next argument `--db-pass VALUE` (taken whatever it looks
 * like: a password may start with '-'), and the passwords of connection strings (a URL's
 * `user:password@`, a `Password=` keyword). A short flag (`-p VALUE`) says nothing of its value,
 * so no rule finds every secret: messages stored for clients leave the arguments out altogether
 * ({@link commandLabel}); this masks what can be known where arguments are shown (stderr lines).
 */
export function commandLineSecrets(args: readonly string[]): string[] {
  const secrets: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const flag = FLAG.exec(arg);
    if (flag && SECRET_NAME.test(flag[1]!)) {
      if (flag[2] !== undefined) secrets.push(flag[2]);
      else if (i + 1 < args.length) secrets.push(args[++i]!);
      continue;
    }
    const url = URL_PASSWORD.exec(arg);
    if (url) secrets.push(url[1]!, safeDecode(url[1]!));
    for (const keyword of arg.matchAll(KEYWORD_PASSWORD)) secrets.push(keyword[1]!.replace(/^(['"])(.*)\1$/, '$2'));
  }
  return secrets;
}

/**
 * A command as messages name it: the executable only (through `redact`), with `…` for its
 * arguments. Arguments carry secrets in forms no rule can tell apart (`-p VALUE`), and these
 * messages are stored in sessions that every client of the app can read.
 */
export function commandLabel(command: string, args: readonly string[], redact: Redactor): string {
  return `${quoteArg(redact(command))}${args.length > 0 ? ' …' : ''}`;
}

/**
 * Masks every argument of a command line in text that came from elsewhere (an error of the MCP
 * SDK or of Node), before it joins a message that names the command by its executable only.
 * Arguments shorter than 4 characters are left, as masking them would garble the text.
 */
export function argumentMasker(command: string, args: readonly string[]): Redactor {
  const hidden = [...new Set(args)]
    .filter((arg) => arg.length >= MIN_SECRET && arg !== command)
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const arg of hidden) if (out.includes(arg)) out = out.split(arg).join(REDACTED);
    return out;
  };
}

/** A header such as `Bearer abc` is masked as a whole and by its token. */
function secretParts(value: string): string[] {
  const parts = [value, ...value.split(/\s+/).slice(1)];
  return parts.filter((part) => part.length >= MIN_SECRET);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./*-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
