/** One content part of an MCP tool result, as the SDK returns it. */
export interface MCPContentPart {
  type: string;
  [key: string]: unknown;
}

/** The result of an MCP `tools/call`, as far as the toolset reads it. */
export interface MCPCallResult {
  content?: readonly MCPContentPart[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The function response for an MCP tool result: `{ result: text }` when the content is only text
 * (parts joined by newlines), else `{ content: [...] }` with each part as plain data; the tool's
 * `structuredContent`, when it returns some, is added as is.
 */
export function toResponse(result: MCPCallResult): Record<string, unknown> {
  const parts = result.content ?? [];
  const response: Record<string, unknown> = {};
  if (parts.length > 0 && parts.every(isText)) response.result = parts.map((p) => p.text).join('\n');
  else response.content = parts.map(toPart);
  if (result.structuredContent !== undefined) response.structuredContent = result.structuredContent;
  return response;
}

/** The text of an error result, for the error the model sees. */
export function errorText(result: MCPCallResult): string {
  const parts = result.content ?? [];
  const text = parts
    .filter(isText)
    .map((p) => p.text)
    .join('\n')
    .trim();
  if (text !== '') return text;
  if (parts.length > 0) return JSON.stringify(parts.map(toPart));
  return result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : '';
}

function isText(part: MCPContentPart): part is MCPContentPart & { text: string } {
  return part.type === 'text' && typeof part.text === 'string';
}

/** A part as plain data: the fields a model can use, without `annotations` and `_meta`. */
function toPart(part: MCPContentPart): Record<string, unknown> {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
    case 'audio':
      return { type: part.type, mimeType: part.mimeType, data: part.data };
    case 'resource_link':
      return defined({
        type: 'resource_link',
        uri: part.uri,
        name: part.name,
        title: part.title,
        description: part.description,
        mimeType: part.mimeType,
      });
    case 'resource': {
      const resource = (part.resource ?? {}) as Record<string, unknown>;
      return defined({
        type: 'resource',
        uri: resource.uri,
        mimeType: resource.mimeType,
        text: resource.text,
        blob: resource.blob,
      });
    }
    default: {
      // A part type newer than this code: passed on as the server sent it.
      const { annotations: _annotations, _meta, ...rest } = part;
      return rest;
    }
  }
}

function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
