import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { type Content, type InlineDataPart, mediaTypeOfFile } from '@troupe/core';
import { CliUsageError } from './errors.js';

/** The largest file `--attach` sends: artifact stores take 10 MiB by default. */
const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/**
 * The user message of a one-shot run with files (`--attach`): the text, then each file as an
 * `inlineData` part named by its file name (the run saves them as artifacts, see
 * `SaveFilesAsArtifactsPlugin`). Throws {@link CliUsageError} naming a file that cannot be sent.
 */
export async function messageWithAttachments(text: string, paths: readonly string[], cwd: string): Promise<Content> {
  const files: InlineDataPart[] = [];
  for (const path of paths) {
    const full = resolve(cwd, path);
    const info = await stat(full).catch((error: NodeJS.ErrnoException) => {
      throw new CliUsageError(
        `--attach ${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message} (looked at ${full}). Give the path of a file to send.`,
      );
    });
    if (!info.isFile())
      throw new CliUsageError(`--attach ${path}: ${full} is not a file. Give the path of a file to send.`);
    if (info.size > MAX_ATTACHMENT_BYTES)
      throw new CliUsageError(
        `--attach ${path}: the file has ${info.size} bytes, more than the ${MAX_ATTACHMENT_BYTES} (10 MiB) a run takes. Send a smaller file.`,
      );
    const data = (await readFile(full)).toString('base64');
    files.push({ inlineData: { mimeType: mediaTypeOfFile(full), data, displayName: basename(full) } });
  }
  return { role: 'user', parts: [{ text }, ...files] };
}
