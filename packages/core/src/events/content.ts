/** A piece of a message, in the Gemini content shape. */
export type Part = TextPart | FunctionCallPart | FunctionResponsePart | InlineDataPart;

export interface TextPart {
  text: string;
  /** True for a model's reasoning ("thought") text, which never counts as its answer. */
  thought?: boolean;
}

export interface FunctionCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface FunctionCallPart {
  functionCall: FunctionCall;
}

export interface FunctionResponse {
  id: string;
  name: string;
  response: Record<string, unknown>;
}

export interface FunctionResponsePart {
  functionResponse: FunctionResponse;
}

export interface InlineDataPart {
  /**
   * `data` is base64. `displayName` is the file's name when the bytes came from one (an upload, as
   * Gemini's `Blob.displayName`); model adapters send only the bytes and their type.
   */
  inlineData: { mimeType: string; data: string; displayName?: string };
}

/** A message: who said it and its parts. */
export interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

/** Builds a user message from a string (or passes a Content through). */
export function userContent(message: string | Content): Content {
  return typeof message === 'string' ? { role: 'user', parts: [{ text: message }] } : message;
}

/** Builds a model message with one text part. */
export function modelText(text: string): Content {
  return { role: 'model', parts: [{ text }] };
}

/** The non-thought text of a content, parts joined without separators. */
export function contentText(content: Content | undefined): string {
  if (!content) return '';
  const parts = content.parts;
  let text = '';
  // An indexed loop: it runs on every model call and event, and for-of is an iterator per call
  // until the code is optimized.
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if ('text' in part && !part.thought) text += part.text;
  }
  return text;
}
