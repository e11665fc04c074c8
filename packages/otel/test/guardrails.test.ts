import { LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { ERROR, only, tracedRunner } from './helpers.js';

describe('tracing a run a guardrail blocks', () => {
  it('marks the invocation and the agent span as errors ending "blocked"', async () => {
    const agent = new LlmAgent({
      name: 'Tutor',
      model: new ScriptedModel(['never']),
      inputGuardrails: [{ name: 'no_homework', blocking: true, check: () => ({ tripwire: true }) }],
    });
    const { exporter, runner } = tracedRunner(agent);
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'homework' });
    expect(result.status).toBe('blocked');
    const spans = exporter.getFinishedSpans();
    expect(spans.every((s) => s.ended)).toBe(true);
    const root = only(spans, 'invocation');
    expect(root.status.code).toBe(ERROR);
    expect(root.status.message).toContain("Guardrail 'no_homework'");
    const agentSpan = only(spans, 'invoke_agent Tutor');
    expect(agentSpan.status.code).toBe(ERROR);
    expect(agentSpan.attributes['error.type']).toBe('GUARDRAIL_TRIPPED');
    expect(agentSpan.attributes['troupe.span.end_reason']).toBe('blocked');
  });
});
