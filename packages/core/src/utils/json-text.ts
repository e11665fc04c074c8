/** A value as JSON for an error message (`String(value)` when it has no JSON form, e.g. a cycle). */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
