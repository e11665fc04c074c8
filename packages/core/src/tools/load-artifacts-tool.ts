import type { CallbackContext } from '../agents/callback-context.js';
import { USER_ARTIFACT_PREFIX } from '../artifacts/artifact-service.js';
import type { Content, Part } from '../events/content.js';
import type { FunctionDeclaration, LlmRequest } from '../models/llm-request.js';
import { appendInstruction } from './append-instruction.js';
import { BaseTool } from './base-tool.js';
import type { ToolContext } from './tool-context.js';

const TOOL_NAME = 'load_artifacts';

/** MIME types models take as inline data; other bytes reach the model as text or a short note. */
const INLINE_PREFIXES = ['image/', 'audio/', 'video/'];
const INLINE_TYPES = new Set(['application/pdf']);
const TEXT_LIKE_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/csv',
  'application/x-yaml',
  'application/yaml',
]);

/**
 * ADK's `load_artifacts`. Before each model request of an agent that offers it, it tells the model
 * which artifacts the session has (its own and the user's `user:` ones). The model calls it with
 * `{ artifact_names: string[] }`; the function response lists the names found (`artifact_names`)
 * and missing (`not_found`), and the next request carries each found artifact after that response
 * (as `Artifact <name> is:` followed by the part) for that one request: to see them again later the
 * model calls the tool again. A name without `user:` that is missing from the session is also looked
 * up as `user:<name>`.
 *
 * Images, audio, video and PDF are sent as they are; text-like bytes (`text/*`, JSON, XML, CSV,
 * YAML) as text; other binary files as a note with their type and size. Needs
 * `Runner({ artifactService })`.
 */
export class LoadArtifactsTool extends BaseTool {
  constructor() {
    super({
      name: TOOL_NAME,
      description:
        'Loads artifacts (files saved in this session, such as uploads or generated images) so you can see their content in your next step.',
    });
  }

  override async getDeclaration(): Promise<FunctionDeclaration> {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          artifact_names: {
            type: 'array',
            items: { type: 'string' },
            description: 'The names of the artifacts to load.',
          },
        },
        required: ['artifact_names'],
      },
    };
  }

  override async runAsync(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const requested = args.artifact_names;
    if (!Array.isArray(requested) || !requested.every((name) => typeof name === 'string')) {
      return {
        error: `load_artifacts takes { artifact_names: string[] }; got ${JSON.stringify(requested)}. Call it again with a list of artifact names.`,
      };
    }
    const found: string[] = [];
    const notFound: string[] = [];
    for (const name of requested) ((await resolveName(ctx, name)) !== undefined ? found : notFound).push(name);
    return {
      artifact_names: found,
      ...(notFound.length > 0 ? { not_found: notFound } : {}),
      status:
        found.length > 0
          ? 'The artifact contents follow this response for your next step only; to see them again later, call load_artifacts again.'
          : 'None of these artifacts exist. Use a name from the list of available artifacts.',
    };
  }

  override async processRequest({
    context,
    request,
  }: {
    context: CallbackContext;
    request: LlmRequest;
  }): Promise<void> {
    if (!context.invocationContext.shared.artifactService) return;
    const names = await context.listArtifacts();
    if (names.length === 0) return;
    const note = `You have these artifacts: ${JSON.stringify(names)}. When the user asks about any of them, call the \`${TOOL_NAME}\` function to load it before answering, even if it was loaded before; do not rely on earlier answers about an artifact.`;
    appendInstruction(request, note);

    const last = request.contents.at(-1);
    if (last?.role !== 'user') return;
    const loaded: Content[] = [];
    for (const part of last.parts) {
      if (!('functionResponse' in part) || part.functionResponse.name !== TOOL_NAME) continue;
      const answered = part.functionResponse.response.artifact_names;
      if (!Array.isArray(answered)) continue;
      for (const name of answered) {
        if (typeof name !== 'string') continue;
        const artifact = await resolveName(context, name);
        if (artifact)
          loaded.push({ role: 'user', parts: [{ text: `Artifact ${name} is:` }, forModel(artifact, name)] });
      }
    }
    request.contents.push(...loaded);
  }
}

/** The built-in `load_artifacts` tool (ADK's `load_artifacts`): add it to an agent's `tools`. */
export const loadArtifactsTool = new LoadArtifactsTool();

/** The latest version of `name`, or of `user:<name>` when the session has no `name`. */
async function resolveName(ctx: CallbackContext, name: string): Promise<Part | undefined> {
  if (name.length === 0) return undefined;
  const artifact = await ctx.loadArtifact(name);
  if (artifact || name.startsWith(USER_ARTIFACT_PREFIX)) return artifact;
  return ctx.loadArtifact(`${USER_ARTIFACT_PREFIX}${name}`);
}

/** An artifact as a part a model can take. */
function forModel(artifact: Part, name: string): Part {
  if (!('inlineData' in artifact)) return artifact;
  const mimeType = artifact.inlineData.mimeType.split(';')[0]!.trim().toLowerCase();
  if (INLINE_PREFIXES.some((prefix) => mimeType.startsWith(prefix)) || INLINE_TYPES.has(mimeType)) return artifact;
  const bytes = Buffer.from(artifact.inlineData.data, 'base64');
  if (
    mimeType.startsWith('text/') ||
    TEXT_LIKE_TYPES.has(mimeType) ||
    mimeType.endsWith('+json') ||
    mimeType.endsWith('+xml')
  ) {
    return { text: bytes.toString('utf8') };
  }
  return {
    text: `[Binary artifact ${name}, type ${mimeType || 'application/octet-stream'}, ${bytes.byteLength} bytes: it cannot be shown inline.]`,
  };
}
