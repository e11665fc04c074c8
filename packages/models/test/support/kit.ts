import type { BaseLlm, RetryOptions, Usage } from '@troupe/core';
import type { FakeServer, RecordedRequest, Reply } from './fake-server.js';

/** A function call as a test scripts it: `json` is the raw argument text the model sends. */
export interface ScriptedCall {
  id: string;
  name: string;
  json: string;
}

/** What the provider told about a function result, read back from a request. */
export interface SentResult {
  id: string | undefined;
  name: string | undefined;
  response: unknown;
}

/**
 * One provider's wire protocol, for the contract suite every adapter runs: how to build the
 * adapter against a fake server, how to answer in that provider's format (as JSON or as a stream,
 * whichever the request asked for), and how to read requests.
 */
export interface WireKit {
  /** The provider's name as error messages show it. */
  label: string;
  /** `ModelError.provider`. */
  provider: string;
  model(server: FakeServer, options?: { retry?: RetryOptions | false }): BaseLlm;
  /** A text answer (streamed in several chunks when the request streams), with usage as Troupe reports it. */
  text(text: string, options?: { usage?: Usage; thought?: string }): Reply;
  /** Function calls (argument text streamed in fragments when the request streams). */
  toolCalls(calls: readonly ScriptedCall[], options?: { usage?: Usage }): Reply;
  /** A call the model could not form: broken JSON arguments, or the provider's own malformed-call signal. */
  malformedCall(name: string, raw: string): Reply;
  /** An HTTP error in the provider's error format. */
  error(status: number, message: string, headers?: Record<string, string>): Reply;
  /** A stream that sends these text chunks, then the connection drops. */
  cut(chunks: readonly string[]): Reply;
  isStreaming(req: RecordedRequest): boolean;
  /** The system instruction as sent. */
  system(req: RecordedRequest): string | undefined;
  /** The names of the declared tools. */
  toolNames(req: RecordedRequest): string[];
  /** The JSON schema sent as the response format, if any. */
  responseSchema(req: RecordedRequest): unknown;
  /** Function results in the request, in order. */
  results(req: RecordedRequest): SentResult[];
  /** Function calls of the model's turns in the request, in order (ids as sent, when the provider sends them). */
  calls(req: RecordedRequest): { id: string | undefined; name: string; args: unknown }[];
}
