import { ConfigurationError } from '../errors.js';
import { EmbeddingError } from './embedding-error.js';
import type { EmbeddingModel } from './embedding-model.js';

/**
 * The embedder's vectors for `texts`, asked in batches of its `maxBatchSize`. Checks what comes
 * back: one vector per text, each of `embedder.dimensions` finite numbers; a vector of another
 * length is a `ConfigurationError` naming both lengths (a model that does not make what it says).
 * A rejected `embed` call is an {@link EmbeddingError} whose `cause` is the embedder's error (an
 * abort by `signal` is rethrown as it is).
 */
export async function embedTexts(
  embedder: EmbeddingModel,
  texts: readonly string[],
  options: { signal?: AbortSignal } = {},
): Promise<number[][]> {
  const size = embedder.maxBatchSize && embedder.maxBatchSize > 0 ? embedder.maxBatchSize : texts.length;
  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += size) {
    const batch = texts.slice(start, start + size);
    const answer = await callEmbed(embedder, batch, options.signal);
    if (!Array.isArray(answer) || answer.length !== batch.length) {
      throw new ConfigurationError(
        `Embedding model ${name(embedder)} returned ${Array.isArray(answer) ? answer.length : typeof answer} vectors for ${batch.length} texts; an embedder must return one vector per text, in order.`,
      );
    }
    for (const vector of answer) {
      if (!Array.isArray(vector) || vector.length !== embedder.dimensions) {
        throw new ConfigurationError(
          `Embedding model ${name(embedder)} says it makes vectors of ${embedder.dimensions} dimensions but returned one of ${Array.isArray(vector) ? vector.length : typeof vector}. Set its dimensions to the model's real size.`,
        );
      }
      vectors.push(vector);
    }
  }
  return vectors;
}

/** The stored vectors' model and size, as a store records them beside the vectors. */
export interface StoredVectorsInfo {
  modelId: string | undefined;
  dimensions: number;
}

/**
 * Refuses an embedder whose vectors cannot be compared with the stored ones (a switch of model):
 * a `ConfigurationError` naming both sizes (or models) and the fix, `reindex()`. `where` names the
 * store (`SqliteMemoryService at ./troupe.db`).
 */
export function checkStoredVectors(
  where: string,
  stored: StoredVectorsInfo | undefined,
  embedder: EmbeddingModel,
): void {
  if (!stored) return;
  const sizes = stored.dimensions !== embedder.dimensions;
  const models = stored.modelId !== undefined && embedder.modelId !== undefined && stored.modelId !== embedder.modelId;
  if (!sizes && !models) return;
  const was = `${stored.dimensions} dimensions${stored.modelId ? ` from '${stored.modelId}'` : ''}`;
  const now = `${embedder.dimensions} dimensions${embedder.modelId ? ` from '${embedder.modelId}'` : ''}`;
  throw new ConfigurationError(
    `${where} holds memory vectors of ${was}, but its embedder makes ${now}: they cannot be compared. Re-embed the stored memories with the new model once (await memoryService.reindex()), or go back to the old embedder.`,
  );
}

async function callEmbed(embedder: EmbeddingModel, batch: string[], signal: AbortSignal | undefined) {
  try {
    return await embedder.embed(batch, signal ? { signal } : {});
  } catch (error) {
    // A cancelled caller wants its own abort back, not a provider failure.
    if (signal?.aborted) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new EmbeddingError(
      `Embedding model ${name(embedder)} failed to embed ${batch.length} text${batch.length === 1 ? '' : 's'}: ${detail}`,
      { cause: error, modelId: embedder.modelId, texts: batch.length },
    );
  }
}

function name(embedder: EmbeddingModel): string {
  return embedder.modelId ? `'${embedder.modelId}'` : '(no modelId)';
}
