import { mediaTypeOfFile } from '../artifacts/media-types.js';
import { ArtifactTooLargeError } from '../errors.js';
import type { ToolContext } from '../tools/tool-context.js';
import type { WrittenFile } from './code-executor.js';

/** A file a run of code wrote, as a tool reports it to the model. */
export interface ReportedFile {
  /** Relative to the working folder. */
  path: string;
  size: number;
  /** The artifact filename it was saved as (its path), when it was saved. */
  artifact?: string;
  /** Why it was not saved, when the Runner has an artifact service but the file could not be kept. */
  note?: string;
}

/**
 * Saves each written file whose bytes were read back as an artifact named by its path (a new
 * version when it exists), with the media type its extension names. Without an artifact service on
 * the Runner nothing is saved and the files are only listed.
 */
export async function saveWrittenFiles(ctx: ToolContext, files: readonly WrittenFile[]): Promise<ReportedFile[]> {
  const canSave = ctx.invocationContext.shared.artifactService !== undefined;
  const reported: ReportedFile[] = [];
  for (const file of files) {
    const entry: ReportedFile = { path: file.path, size: file.size };
    reported.push(entry);
    if (!canSave) continue;
    if (file.content === undefined) {
      entry.note = 'Not saved as an artifact: larger than the executor reads back.';
      continue;
    }
    try {
      await ctx.saveArtifact(file.path, {
        inlineData: { mimeType: mediaTypeOfFile(file.path), data: Buffer.from(file.content).toString('base64') },
      });
      entry.artifact = file.path;
    } catch (error) {
      // A file over the store's limit is reported to the model, not fatal: the run's output still counts.
      if (!(error instanceof ArtifactTooLargeError)) throw error;
      entry.note = `Not saved as an artifact: ${error.message}`;
    }
  }
  return reported;
}
