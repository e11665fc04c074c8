/** The cosine of the angle between two vectors of one length: 1 same direction, 0 unrelated. 0 for a zero vector. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/**
 * The vector scaled to length 1 (a zero vector stays zero), as a `Float32Array`: stores keep unit
 * vectors, so the cosine of two of them is their dot product.
 */
export function unitVector(vector: readonly number[]): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
  const unit = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) unit[i] = vector[i]! * scale;
  return unit;
}

/** The dot product of two vectors of one length (the cosine, for unit vectors). */
export function dotProduct(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}
