/** A connection URL (PostgreSQL, Redis) without its password, for printing; one that does not parse is not printed at all. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the given connection string';
  }
}
