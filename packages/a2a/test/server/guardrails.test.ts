import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { a2aApp, type A2aApp } from '@troupe/a2a';
import { inProcessClient } from './helpers/sdk-client.js';

// A run blocked by a guardrail (status 'blocked') is an A2A task the agent refused: `rejected`, with
// the guardrail's message, live and when read back from the store.

const clientOf = (app: A2aApp): Promise<Client> => inProcessClient(app, 'http://guarded.example');

describe('A2A: a tripped guardrail', () => {
  it('ends the task rejected, with the guardrail named in the status message', async () => {
    const model = new ScriptedModel([]);
    const agent = new LlmAgent({
      name: 'Tutor',
      model,
      inputGuardrails: [{ name: 'no_homework', blocking: true, check: () => ({ tripwire: true }) }],
    });
    const client = await clientOf(a2aApp(agent, { baseUrl: 'http://guarded.example' }));
    const task = await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'do my homework' }] },
      }),
    );
    expect('status' in task && task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const message = 'status' in task ? task.status?.message?.parts[0]?.content : undefined;
    expect(message).toMatchObject({ $case: 'text' });
    expect((message as { value: string }).value).toMatch(
      /^Guardrail 'no_homework' tripped on the input of agent 'Tutor'/,
    );
    const stored = await client.getTask({ tenant: '', id: 'id' in task ? task.id : '', historyLength: undefined });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(model.callCount).toBe(0);
  });
});
