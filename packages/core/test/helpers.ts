import {
  InMemoryRunner,
  type BaseAgent,
  type BaseLlm,
  type BasePlugin,
  type Event,
  type RunConfig,
  type RunResult,
} from '@troupe/core';

/** Runs one user turn on a fresh in-memory session (or the given one) and returns the result. */
export async function runOnce(
  agent: BaseAgent,
  message: string,
  options: {
    defaultModel?: BaseLlm;
    plugins?: BasePlugin[];
    runConfig?: RunConfig;
    state?: Record<string, unknown>;
    abortSignal?: AbortSignal;
  } = {},
): Promise<RunResult & { runner: InMemoryRunner; sessionId: string }> {
  const runner = new InMemoryRunner({
    agent,
    ...(options.defaultModel ? { defaultModel: options.defaultModel } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
  const session = await runner.sessionService.createSession({
    appName: runner.appName,
    userId: 'u',
    ...(options.state ? { state: options.state } : {}),
  });
  const result = await runner.run({
    userId: 'u',
    sessionId: session.id,
    newMessage: message,
    ...(options.runConfig ? { runConfig: options.runConfig } : {}),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  return { ...result, runner, sessionId: session.id };
}

/** The text parts of every content of a request, flattened. */
export function texts(contents: { parts: unknown[] }[]): string[] {
  const out: string[] = [];
  for (const c of contents)
    for (const p of c.parts as { text?: string }[]) if (typeof p.text === 'string') out.push(p.text);
  return out;
}

/** author:text lines of events with text. */
export function transcript(events: Event[]): string[] {
  return events
    .filter((e) => e.content?.parts.some((p) => 'text' in p))
    .map((e) => `${e.author}: ${e.content!.parts.map((p) => ('text' in p ? p.text : '')).join('')}`);
}
