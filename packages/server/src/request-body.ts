import { INVOCATION_ID_PATTERN, MAX_ID_LENGTH } from '@troupe/core/hosting';
import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError } from './http-error.js';
import { checkJsonValue, checkNesting, DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits.js';

// Request bodies, validated at the edge so a bad request is a 400 naming the field, never a run
// that fails later. ADK clients send camelCase; snake_case top-level keys (`app_name`) are
// accepted too, as ADK's own server accepts both.

const record = z.record(z.string(), z.unknown());

const part = z.union(
  [
    z.object({ text: z.string(), thought: z.boolean().optional() }),
    z.object({ functionCall: z.object({ id: z.string(), name: z.string(), args: record }) }),
    z.object({ functionResponse: z.object({ id: z.string(), name: z.string(), response: record }) }),
    z.object({ inlineData: z.object({ mimeType: z.string(), data: z.string() }) }),
  ],
  { error: 'expected a part with text, functionCall, functionResponse or inlineData' },
);

/** ADK Content sent by the user. `role` defaults to `'user'`. */
const userContent = z.object({
  role: z.literal('user', { error: "expected 'user' (the message is the user's)" }).default('user'),
  parts: z.array(part).min(1, { error: 'expected at least one part' }),
});

/**
 * A caller-chosen invocation id, by core's rule, so a bad one is a 400 naming the field rather
 * than a run refused later. Null is absent, as ADK clients send it.
 */
const invocationId = z
  .string()
  .regex(INVOCATION_ID_PATTERN, { error: 'expected 1 to 128 characters of letters, digits, ".", "_", ":" or "-"' })
  .nullish();

/** An app, user or session id: used in paths, as store keys and in every list, so kept short. */
const id = z
  .string()
  .min(1)
  .max(MAX_ID_LENGTH, { error: `expected at most ${MAX_ID_LENGTH} characters` });

/** What a run is asked to do: the fields `/run` shares with the background-run routes. */
const turnFields = {
  newMessage: userContent.optional(),
  /** Troupe extension: a structured input for the agent (`ctx.input`), instead of or with `newMessage`. */
  input: record.optional(),
  stateDelta: record.nullish(),
  streaming: z.boolean().nullish(),
};

const needsMessage = {
  path: ['newMessage'],
  error: 'expected the user message as ADK Content { role: "user", parts: [{ text }] } (or an input object)',
};

/** Body of `POST /run` and `POST /run_sse`. */
export const runBody = z
  .object({
    appName: id,
    userId: id,
    sessionId: id,
    ...turnFields,
    /** Troupe extension: the invocation's id, chosen by the caller (a retry with the same id is refused with 409). */
    invocationId,
  })
  .refine((body) => body.newMessage !== undefined || body.input !== undefined, needsMessage);
export type RunBody = z.infer<typeof runBody>;

const multitaskStrategy = z
  .enum(['reject', 'enqueue', 'interrupt'], { error: "expected 'reject', 'enqueue' or 'interrupt'" })
  .nullish();

/** Body of `POST /apps/{app}/users/{user}/sessions/{id}/runs`: a turn for a worker (the path names the session). */
export const backgroundRunBody = z
  .object({
    ...turnFields,
    /** With a run already pending or running on the session. Absent: `'reject'` (409). */
    multitaskStrategy,
    /** The run's id, which is also its invocation id and its job id (BullMQ's job ids cannot hold ':'). */
    runId: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,128}$/, { error: 'expected 1 to 128 characters of letters, digits, ".", "_" or "-"' })
      .nullish(),
  })
  .refine((body) => body.newMessage !== undefined || body.input !== undefined, needsMessage);
export type BackgroundRunBody = z.infer<typeof backgroundRunBody>;

/** A schedule id: 1 to 64 characters of `A-Za-z0-9._-`, as the queue keeps them. */
export const scheduleId = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: 'expected 1 to 64 characters of letters, digits, ".", "_" or "-"' });

/** Body of `POST /apps/{app}/schedules`. */
export const scheduleBody = z
  .object({
    id: scheduleId.nullish(),
    userId: id,
    /** Every tick runs in this session; absent: a new session per tick. */
    sessionId: id.nullish(),
    newMessage: userContent.optional(),
    input: record.optional(),
    pattern: z.string().min(1).max(256, { error: 'expected at most 256 characters' }).nullish(),
    tz: z.string().min(1).max(64, { error: 'expected at most 64 characters' }).nullish(),
    everyMs: z
      .number()
      .int({ error: 'expected a whole number of milliseconds' })
      .min(1000, { error: 'expected at least 1000 (one second)' })
      .nullish(),
    multitaskStrategy,
  })
  .refine((body) => body.newMessage !== undefined || body.input !== undefined, needsMessage)
  .refine((body) => (body.pattern ?? undefined) !== undefined || (body.everyMs ?? undefined) !== undefined, {
    path: ['pattern'],
    error: "expected a cron pattern (e.g. '0 9 * * 1-5') or everyMs (e.g. 3600000)",
  })
  .refine((body) => (body.pattern ?? undefined) === undefined || (body.everyMs ?? undefined) === undefined, {
    path: ['everyMs'],
    error: 'expected only one of pattern and everyMs',
  });
export type ScheduleBody = z.infer<typeof scheduleBody>;

/** Body of `POST /apps/{app}/users/{user}/sessions` (and, without `sessionId`, of `.../sessions/{id}`). */
export const createSessionBody = z.object({
  sessionId: id.nullish(),
  state: record.nullish(),
});

/** Body of `PATCH /apps/{app}/users/{user}/sessions/{id}` (ADK's session update). */
export const updateSessionBody = z.object({
  stateDelta: z.record(z.string(), z.unknown(), {
    error: 'expected an object of the state keys to write, e.g. { "stateDelta": { "city": "Paris" } }',
  }),
});

/** Body of `POST /apps/{app}/users/{user}/sessions/{id}/resume`. */
export const resumeBody = z.object({
  /** Answers by interrupt id. Absent or empty only to continue a crashed invocation (`invocationId`). */
  responses: record.nullish(),
  invocationId,
  /** Partial text events while the rest of the run streams. */
  streaming: z.boolean().nullish(),
});

/** Query of `GET /apps/{app}/users/{user}/sessions/{id}`. */
export const getSessionQuery = z.object({
  numRecentEvents: z.coerce.number().int().nonnegative().optional(),
  /** Seconds since the epoch, as timestamps are on the wire. */
  afterTimestamp: z.coerce.number().nonnegative().optional(),
});

/**
 * Reads and validates a JSON body. An empty body counts as `{}` when `emptyAllowed` (session
 * creation takes an optional body); malformed JSON, a non-object, a body past the `jsonLimits`
 * (nesting, sizes, reserved keys) or a schema mismatch is a 400 whose message and `field` name the
 * offending field.
 */
export async function readBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  options: { emptyAllowed?: boolean } = {},
): Promise<z.output<S>> {
  return validate(schema, camelCaseKeys(await readJsonObject(c, options)), 'request body');
}

/**
 * Reads a JSON object body held to the body size and `jsonLimits`, as {@link readBody} does,
 * without a schema (for protocols that check their own shapes, such as OpenAI's).
 */
export async function readJsonObject(
  c: Context,
  options: { emptyAllowed?: boolean } = {},
): Promise<Record<string, unknown>> {
  const text = await readText(c.req.raw, bodyLimitOf(c));
  const limits = jsonLimitsOf(c);
  let raw: unknown = {};
  if (text.trim() === '') {
    if (!options.emptyAllowed) throw new HttpError(400, 'INVALID_REQUEST', 'The request needs a JSON body.');
  } else {
    checkNesting(text, limits.maxDepth);
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new HttpError(
        400,
        'INVALID_JSON',
        `The request body is not valid JSON: ${(error as Error).message}`,
        undefined,
        { cause: error },
      );
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `The request body must be a JSON object; got ${Array.isArray(raw) ? 'an array' : JSON.stringify(raw).slice(0, 100)}.`,
    );
  }
  checkJsonValue(raw, limits);
  return raw as Record<string, unknown>;
}

/** The body size limit createApp stored on the request's context. */
function bodyLimitOf(c: Context): number {
  const limit: unknown = c.get('bodyLimit');
  return typeof limit === 'number' ? limit : Number.POSITIVE_INFINITY;
}

/** The JSON limits createApp stored on the request's context. */
export function jsonLimitsOf(c: Context): Required<JsonLimits> {
  const limits: unknown = c.get('jsonLimits');
  return typeof limits === 'object' && limits !== null ? (limits as Required<JsonLimits>) : DEFAULT_JSON_LIMITS;
}

/**
 * Reads a request body as UTF-8, refusing (413) one larger than `limit` bytes: up front when
 * Content-Length says so, else as soon as the bytes read pass the limit, without reading the rest.
 * A body whose client gave up mid-upload (the connection closed) is a 400 `REQUEST_ABORTED`, which
 * nobody receives and `onError` hears of at info level: the client's doing, not a server failure.
 */
export async function readText(request: Request, limit: number): Promise<string> {
  const tooLarge = () =>
    new HttpError(
      413,
      'PAYLOAD_TOO_LARGE',
      `The request body is larger than the server's limit of ${limit} bytes. Send less, or raise createApp's bodyLimit.`,
    );
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > limit) throw tooLarge();
  // A declared length within the limit is all the HTTP parser will read: the request's own text()
  // reads it straight from the connection (the Node adapter's fast path), without the web stream
  // the reader below costs per request. Chunked bodies are counted as they arrive.
  if (Number.isInteger(declared)) return readDeclared(request, declared);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let step: Awaited<ReturnType<typeof reader.read>>;
    try {
      step = await reader.read();
    } catch (error) {
      throw clientStopped(`after ${size} bytes`, error);
    }
    const { done, value } = step;
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

async function readDeclared(request: Request, declared: number): Promise<string> {
  try {
    return await request.text();
  } catch (error) {
    throw clientStopped(`before its declared ${declared} bytes`, error);
  }
}

/** The body comes from the client's connection: reading it fails only when that connection does. */
function clientStopped(when: string, error: unknown): HttpError {
  const why = error instanceof Error ? error.message : String(error);
  return new HttpError(
    400,
    'REQUEST_ABORTED',
    `The client stopped sending the request body ${when} (${why}); the request was dropped.`,
    undefined,
    { cause: error },
  );
}

/** Validates a value (a parsed body or a query) and turns the first issue into a 400 naming its field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  throw new HttpError(
    400,
    'INVALID_REQUEST',
    `Invalid ${what}: field '${field || '(root)'}': ${issue.message}.`,
    field || undefined,
  );
}

/** `app_name` → `appName` for the top-level keys only (state keys inside are the user's). */
function camelCaseKeys(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => {
      const camel = key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
      return [camel !== key && !(camel in body) ? camel : key, value];
    }),
  );
}
