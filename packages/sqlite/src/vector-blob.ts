/**
 * Vectors as SQLite keeps them: little-endian Float32 BLOBs (what sqlite-vec reads as a `float[n]`)
 * of unit vectors (`unitVector`), so that the dot product of two stored vectors is their cosine.
 */

/** The BLOB of a Float32 vector (its bytes, not a copy of the array's whole buffer). */
export function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A stored BLOB as floats; copied only when the bytes do not start on a 4-byte boundary. */
export function fromBlob(blob: Uint8Array): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2);
  return new Float32Array(new Uint8Array(blob).buffer);
}
