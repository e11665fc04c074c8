/** The marker that ends output cut at the cap. */
export function truncationMarker(maxBytes: number): string {
  return `\n[output truncated at ${maxBytes} bytes]`;
}

/**
 * Collects a stream's bytes up to a cap and drops the rest (while still reading them, so the
 * process never blocks on a full pipe): a run that prints forever costs no more memory than the cap.
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  /** More bytes arrived than the cap allows. */
  truncated = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    const room = this.maxBytes - this.bytes;
    if (chunk.byteLength > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.bytes += kept.byteLength;
  }

  /** The text collected, ending with the truncation marker when bytes were dropped. */
  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    // A cut inside a multi-byte character decodes to a replacement character: drop it.
    return this.truncated ? text.replace(/\uFFFD$/, '') + truncationMarker(this.maxBytes) : text;
  }
}
