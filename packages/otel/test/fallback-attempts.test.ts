import { LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { ERROR, OK, exceptionMessages, only, outline, runOn, tracedRunner } from './helpers.js';

describe('fallbackModels in a trace', () => {
  it.each([['none'], ['sse']] as const)(
    'each attempt is its own span named after the model called; the failed one is an error with its status (streaming %s)',
    async (streaming) => {
      const primary = new ScriptedModel([{ error: 'overloaded', status: 503 }], { model: 'primary-model' });
      const fallback = new ScriptedModel([{ chunks: ['from ', 'the fallback'] }], { model: 'fallback-model' });
      const agent = new LlmAgent({ name: 'Writer', model: primary, fallbackModels: [fallback] });
      const { exporter, runner } = tracedRunner(agent);
      const result = await runOn(runner, 'write', { streaming });
      expect(result.status).toBe('completed');
      const spans = exporter.getFinishedSpans();
      // Both calls sit under the agent; the answering one's span covers the whole call, so it starts first.
      expect(outline(spans)).toEqual([
        'invocation',
        '  invoke_agent Writer',
        '    chat fallback-model',
        '    chat primary-model',
      ]);

      const failed = only(spans, 'chat primary-model');
      expect(failed.status.code).toBe(ERROR);
      expect(failed.attributes).toMatchObject({
        'gen_ai.request.model': 'primary-model',
        'http.response.status_code': 503,
        'gen_ai.agent.name': 'Writer',
      });
      expect(exceptionMessages(failed)[0]).toMatch(/overloaded/);
      const answered = only(spans, 'chat fallback-model');
      expect(answered.status.code).toBe(OK);
      expect(answered.attributes['gen_ai.response.model']).toBe('fallback-model');
      // The failed attempt ran before the answer came. Up to a millisecond: the SDK dates a span's
      // start with Date.now() (whole milliseconds) and its end as start + a precise duration, so the
      // answering span's recorded end can fall up to 1 ms before the true one, while the attempt's
      // end is a Date.now() taken at its failure.
      const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
      expect(ms(failed.endTime)).toBeLessThan(ms(answered.endTime) + 1);
    },
  );
});
