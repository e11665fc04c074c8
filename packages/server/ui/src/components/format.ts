/** A wire timestamp (seconds since the epoch) as local time; with milliseconds for events. */
export function formatTime(seconds: number, precise = true): string {
  const date = new Date(seconds * 1000);
  const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  if (!precise) {
    const today = new Date().toDateString() === date.toDateString();
    return today ? time : `${date.toLocaleDateString()} ${time}`;
  }
  return `${time}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** A value as indented JSON for detail views. */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
