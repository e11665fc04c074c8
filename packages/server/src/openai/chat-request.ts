import type { Context } from 'hono';
import { readJsonObject } from '../request-body.js';
import type { ServerEnv } from '../server-context.js';
import { invalid, kindOf } from './invalid.js';
import { readMessage, type ChatMessage } from './chat-message.js';

/** What Troupe uses of a `POST /v1/chat/completions` body, checked. */
export interface ChatRequest {
  /** The app to run (OpenAI's model). */
  model: string;
  /** The conversation; its last message is the user's (the turn to run). */
  messages: ChatMessage[];
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage (and no choices). */
  includeUsage: boolean;
  /** The end user the client acts for, as OpenAI's `user` is: recorded nowhere, never the session's user. */
  user: string | undefined;
}

/**
 * Reads a chat completion request. The body is held to the limits of every other route (size,
 * nesting, string and array sizes, reserved keys), then to OpenAI's shape for what Troupe uses;
 * what Troupe cannot honour is refused rather than ignored, naming the parameter and the fix: more
 * than one choice (`n`), client tools (`tools`, `functions`, `tool_choice`), a structured
 * `response_format`, `logprobs` and audio output. Sampling settings (`temperature`, `max_tokens`,
 * `stop`, `seed`, ...) belong to the app's own models and are accepted and left unused.
 */
export async function readChatRequest(c: Context<ServerEnv>): Promise<ChatRequest> {
  return checkBody(await readJsonObject(c));
}

function checkBody(body: Record<string, unknown>): ChatRequest {
  const { model, messages, stream, stream_options: streamOptions, user } = body;
  if (typeof model !== 'string' || model === '')
    throw invalid('model', `expected the name of an app (GET /v1/models lists them); got ${kindOf(model)}`);
  if (!Array.isArray(messages) || messages.length === 0)
    throw invalid(
      'messages',
      `expected a non-empty array of messages ending with the user's, e.g. [{ "role": "user", "content": "Hi" }]; got ${Array.isArray(messages) ? 'an empty array' : kindOf(messages)}`,
    );
  const read = messages.map((message, index) => readMessage(message, `messages[${index}]`));
  const last = read.at(-1)!;
  if (last.role !== 'user')
    throw invalid(
      `messages[${read.length - 1}].role`,
      `the last message is the turn to run and must be the user's; got a '${last.role}' message. End the conversation with the user's new message`,
    );
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean')
    throw invalid('stream', `expected true or false; got ${kindOf(stream)}`);
  const includeUsage = readStreamOptions(streamOptions, stream === true);
  if (user !== undefined && user !== null && typeof user !== 'string')
    throw invalid('user', `expected a string (an id of the end user); got ${kindOf(user)}`);
  refuseUnsupported(body);
  return {
    model,
    messages: read,
    stream: stream === true,
    includeUsage,
    user: typeof user === 'string' ? user : undefined,
  };
}

function readStreamOptions(options: unknown, streaming: boolean): boolean {
  if (options === undefined || options === null) return false;
  if (!streaming)
    throw invalid(
      'stream_options',
      'stream_options is for streamed answers: send it with stream: true, or leave it out',
    );
  if (typeof options !== 'object' || Array.isArray(options))
    throw invalid('stream_options', `expected an object such as { "include_usage": true }; got ${kindOf(options)}`);
  const include = (options as Record<string, unknown>).include_usage;
  if (include !== undefined && include !== null && typeof include !== 'boolean')
    throw invalid('stream_options.include_usage', `expected true or false; got ${kindOf(include)}`);
  return include === true;
}

/** Refuses the parameters whose meaning Troupe cannot give, so a client never relies on one silently dropped. */
function refuseUnsupported(body: Record<string, unknown>): void {
  const { n, tools, functions, tool_choice: toolChoice, response_format: format, logprobs, modalities, audio } = body;
  if (n !== undefined && n !== null && n !== 1)
    throw invalid(
      'n',
      `an app answers each turn once, so there is one choice; got ${JSON.stringify(n)}. Leave n out or send 1`,
    );
  for (const [name, value] of [
    ['tools', tools],
    ['functions', functions],
  ] as const) {
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0))
      throw invalid(
        name,
        `the app's agents call their own tools on the server; tools of the client are not supported. Leave ${name} out`,
      );
  }
  if (toolChoice !== undefined && toolChoice !== null && toolChoice !== 'none' && toolChoice !== 'auto')
    throw invalid('tool_choice', "the app's agents choose their own tools; leave tool_choice out (or send 'auto')");
  const formatType = (format as { type?: unknown } | null | undefined)?.type;
  if (format !== undefined && format !== null && formatType !== 'text')
    throw invalid(
      'response_format',
      `the app decides the shape of its answers (an agent's outputSchema); got ${JSON.stringify(formatType ?? format)}. Leave response_format out, or send { "type": "text" }`,
    );
  if (logprobs !== undefined && logprobs !== null && logprobs !== false)
    throw invalid(
      'logprobs',
      'an app is not one model call, so it has no log probabilities to send; leave logprobs out',
    );
  if ((Array.isArray(modalities) && modalities.some((m) => m !== 'text')) || (audio !== undefined && audio !== null))
    throw invalid(
      Array.isArray(modalities) ? 'modalities' : 'audio',
      "apps answer in text; leave audio output out (modalities: ['text'])",
    );
}
