import { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content, Part } from '../events/content.js';
import type { EventActions } from '../events/event.js';
import { BasePlugin } from '../runner/base-plugin.js';
import { extensionOfMediaType } from './media-types.js';

/**
 * Saves the files a user sends (the `inlineData` parts of a new message) as artifacts of the
 * session, and stores the message with a short reference in place of each file's bytes (ADK's
 * `SaveFilesAsArtifactsPlugin`). Models then see the reference instead of the bytes on every later
 * turn, and tools read the file with `ctx.loadArtifact(name)` (code execution places it in its
 * working folder by name). The user event records the versions in `actions.artifactDelta`.
 *
 * A file keeps its name (`inlineData.displayName`, its last path segment); a file without one is
 * named `upload_<invocationId>_<n>` plus an extension for its type. Needs `Runner({ artifactService })`.
 *
 * @example
 * const runner = new Runner({ appName, agent, sessionService, artifactService, plugins: [new SaveFilesAsArtifactsPlugin()] });
 * await runner.run({ userId, sessionId, newMessage: { role: 'user', parts: [
 *   { text: 'Summarise this.' },
 *   { inlineData: { mimeType: 'text/csv', data: base64, displayName: 'sales.csv' } },
 * ] } });
 */
export class SaveFilesAsArtifactsPlugin extends BasePlugin {
  constructor() {
    super('save-files-as-artifacts');
  }

  override async onUserMessage({
    context,
    message,
    actions,
  }: {
    context: InvocationContext;
    message: Content;
    actions: EventActions;
  }): Promise<Content | undefined> {
    if (!message.parts.some((part) => 'inlineData' in part)) return undefined;
    const callback = new CallbackContext(context);
    const parts: Part[] = [];
    let index = 0;
    for (const part of message.parts) {
      if (!('inlineData' in part)) {
        parts.push(part);
        continue;
      }
      const { mimeType, displayName } = part.inlineData;
      const filename =
        fileNameOf(displayName) ?? `upload_${context.invocationId}_${index}${extensionOfMediaType(mimeType)}`;
      index++;
      const version = await callback.saveArtifact(filename, part);
      parts.push({
        text: `[Uploaded file "${filename}" (${mimeType}), saved as artifact "${filename}" version ${version}]`,
      });
    }
    callback.applyTo(actions);
    return { ...message, parts };
  }
}

/** The last segment of an uploaded file's name: a name is never a path into the artifact store. */
function fileNameOf(displayName: string | undefined): string | undefined {
  const name = displayName?.split(/[\\/]/).pop()?.trim();
  return name ? name : undefined;
}
