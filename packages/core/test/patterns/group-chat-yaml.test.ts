import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentDefinitionError, InMemoryRunner, loadAgent } from '@troupe/core';
import { GroupChatAgent } from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';

function write(text: string): string {
  const dir = tempDir('troupe-group-chat-yaml-');
  writeFileSync(join(dir, 'agent.yaml'), text);
  return dir;
}

const participants = [
  'participants:',
  '  - { name: Writer, description: Drafts., instruction: Write. }',
  '  - { name: Critic, description: Reviews., instruction: Review. }',
];

describe('type: group_chat in YAML', () => {
  it('round_robin with max_turns and terminate', async () => {
    const dir = write(
      [
        'type: group_chat',
        'name: Room',
        'selector: round_robin',
        'max_turns: 4',
        'terminate: APPROVED',
        ...participants,
      ].join('\n'),
    );
    const model = new ScriptedModel(['draft', 'APPROVED']);
    const agent = await loadAgent(dir, { model });
    expect(agent).toBeInstanceOf(GroupChatAgent);
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'A haiku' });
    expect(result.events.at(-1)!.actions.agentState).toEqual({
      stopReason: 'terminated',
      turns: 2,
      speakers: ['Writer', 'Critic'],
    });
  });

  it('a model name as the selector', async () => {
    const selector = new ScriptedModel(['Critic', 'DONE']);
    const dir = write(['type: group_chat', 'name: Room', 'selector: picker', ...participants].join('\n'));
    const agent = await loadAgent(dir, { model: new ScriptedModel(['looks fine']), models: { picker: selector } });
    expect((agent as GroupChatAgent).selector).toBe(selector);
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'A haiku' });
    expect(result.events.at(-1)!.actions.agentState).toEqual({
      stopReason: 'selector',
      turns: 1,
      speakers: ['Critic'],
    });
  });

  it('rejects a missing selector, no participants and a non-positive max_turns', async () => {
    const fail = (text: string) => loadAgent(write(text), { model: new ScriptedModel([]) }).catch((e: unknown) => e);
    expect(String(await fail(['type: group_chat', 'name: Room', ...participants].join('\n')))).toMatch(
      /'selector' is required: 'round_robin'/,
    );
    expect(await fail('type: group_chat\nname: Room\nselector: round_robin\nparticipants: []\n')).toBeInstanceOf(
      AgentDefinitionError,
    );
    expect(
      String(
        await fail(
          ['type: group_chat', 'name: Room', 'selector: round_robin', 'max_turns: 0', ...participants].join('\n'),
        ),
      ),
    ).toMatch(/max_turns/);
  });
});
