import { createRedactor, REDACTED, type Redactor } from '@troupe/core';

/** Names of flags, environment variables and headers whose values are secrets. */
const SECRET_NAME = /(?:key|token|secret|password|passwd|pwd|auth|authorization|cookie|credentials?)$/i;
/** Secrets shorter than this are not masked by value (masking "1" would garble every message). */
const MIN_SECRET = 4;

/**
 * The redactor of one server's messages and stderr: core's rules (URL passwords, bearer tokens,
 * API-key shapes, secret-named environment variables of this process) plus the values of the
 * connection's own secret-named `env` entries and `headers`.
 */
export function connectionRedactor(
  env: Readonly<Record<string, string>> | undefined,
  headers: Readonly<Record<string, string>> | undefined,
): Redactor {
  const secrets: string[] = [];
  for (const map of [env, headers]) {
    for (const [name, value] of Object.entries(map ?? {})) {
      if (SECRET_NAME.test(name)) secrets.push(...secretParts(value));
    }
  }
  return createRedactor({ secrets });
}

/**
 * A command line as messages show it: the value of a secret-named flag is masked
 * (`--api-key=***`, `--token ***`), and every argument passes through `redact`.
 */
export function commandLabel(command: string, args: readonly string[], redact: Redactor): string {
  const shown: string[] = [];
  let hideNext = false;
  for (const arg of args) {
    if (hideNext && !arg.startsWith('-')) {
      shown.push(REDACTED);
      hideNext = false;
      continue;
    }
    const flag = /^(--?[\w.-]+)=/.exec(arg);
    if (flag && SECRET_NAME.test(flag[1]!)) {
      shown.push(`${flag[1]}=${REDACTED}`);
      hideNext = false;
      continue;
    }
    hideNext = /^--?[\w.-]+$/.test(arg) && SECRET_NAME.test(arg);
    shown.push(redact(arg));
  }
  return [redact(command), ...shown].map(quoteArg).join(' ');
}

/** A header such as `Bearer abc` is masked as a whole and by its token. */
function secretParts(value: string): string[] {
  const parts = [value, ...value.split(/\s+/).slice(1)];
  return parts.filter((part) => part.length >= MIN_SECRET);
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./*-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
