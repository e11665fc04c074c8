import {
  BasePlugin,
  FunctionAgent,
  InMemorySessionService,
  type RunResult,
  type RunStatus,
  SequentialAgent,
  type SessionService,
} from '@troupe/core';
import { createApp, type CreateAppOptions } from '../src/index.js';

/** Options of {@link relayApp}. */
export interface RelayOptions {
  /** How long step 'second' works on a message containing "slow", unless aborted. @default 10_000 */
  waitMs?: number;
  /**
   * When given, 'second' ignores the run's abort signal (work that cannot be interrupted) and works
   * until this promise settles, which the test does once it has checked the run did not wait for it.
   */
  ignoresSignalUntil?: Promise<void>;
  sessionService?: SessionService;
  app?: Partial<CreateAppOptions>;
}

/**
 * An app 'relay': a SequentialAgent of three FunctionAgents, first → second → third, each
 * answering "<name> done". On a message containing "slow", 'second' works for `waitMs`. The app
 * records which steps started and finished (`"<step>:<message>"`) and how each run ended (`outcomes`,
 * from a plugin's afterRun), so tests can tell that a cancelled run started nothing after it.
 */
export function relayApp(options: RelayOptions = {}) {
  const waitMs = options.waitMs ?? 10_000;
  const started: string[] = [];
  const finished: string[] = [];
  const outcomes: RunStatus[] = [];
  let secondDone: Promise<void> = Promise.resolve();

  const step = (name: string) =>
    new FunctionAgent({
      name,
      run: async (input, ctx) => {
        const text = String(input.request);
        started.push(`${name}:${text}`);
        if (name === 'second' && text.includes('slow')) {
          const work = options.ignoresSignalUntil ?? pause(waitMs, ctx.abortSignal);
          secondDone = work.then(
            () => undefined,
            () => undefined,
          );
          await work;
        }
        finished.push(`${name}:${text}`);
        return `${name} done`;
      },
    });

  class Outcomes extends BasePlugin {
    constructor() {
      super('outcomes');
    }
    override afterRun({ result }: { result: RunResult }): undefined {
      outcomes.push(result.status);
      return undefined;
    }
  }

  const sessionService = options.sessionService ?? new InMemorySessionService();
  const relay = new SequentialAgent({ name: 'relay', subAgents: [step('first'), step('second'), step('third')] });
  const app = createApp({ apps: { relay }, sessionService, plugins: [new Outcomes()], ...options.app });
  return {
    app,
    sessionService,
    started,
    finished,
    outcomes,
    /** Settles when the latest slow 'second' step stopped working (finished or aborted). */
    secondDone: () => secondDone,
  };
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}
