import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createEvent, InMemorySessionService, LlmAgent, node, RequestInput, Workflow } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { a2aApp } from '@troupe/a2a';
import { asTask, collect, data, dataOf, message, sdkClient, textsOf } from './helpers/sdk-client.js';

// A graph workflow (SPEC §17) as the root of an A2A app, on a loopback port, driven by the official
// SDK's client: what its nodes say streams as artifacts (an agent node's chunks, a function node's
// content), its output is the completed status's message, and a RequestInput is input-required,
// answered on the same task with { interruptId, value }.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

async function serveWorkflow(workflow: Workflow): Promise<string> {
  const holder: { fetch?: (request: Request) => Response | Promise<Response> } = {};
  const listener = getRequestListener((request) => holder.fetch!(request));
  const server = createServer((req, res) => void listener(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = a2aApp(workflow, { baseUrl, sessionService: new InMemorySessionService() });
  holder.fetch = (request) => app.fetch(request);
  return baseUrl;
}

/** Each artifact's text as streamed (chunks joined), by artifact name. */
function artifactTexts(events: readonly StreamResponse[]): [string, string][] {
  const texts = new Map<string, string>();
  for (const e of events) {
    if (e.payload?.$case !== 'artifactUpdate') continue;
    const { artifact, append } = e.payload.value;
    const before = append ? (texts.get(artifact!.name) ?? '') : '';
    texts.set(artifact!.name, before + textsOf(artifact!.parts).join(''));
  }
  return [...texts];
}

describe('a graph workflow served over A2A', () => {
  it("streams its agent node's chunks and a node's content as artifacts, and completes with the workflow's output", async () => {
    const writer = new LlmAgent({ name: 'writer', model: new ScriptedModel([{ chunks: ['Dear ', 'Ada'] }]) });
    const shout = node(
      (_ctx, text: string) =>
        createEvent({ output: text.toUpperCase(), content: { role: 'model', parts: [{ text: 'Shouting.' }] } }),
      { name: 'shout' },
    );
    const sign = node((_ctx, text: string) => `${text} -- Troupe`, { name: 'sign' });
    const baseUrl = await serveWorkflow(new Workflow({ name: 'letter', edges: [['START', writer, shout, sign]] }));
    const client = await sdkClient(baseUrl);

    const events = await collect(client.sendMessageStream(message('Write to Ada')));
    expect(artifactTexts(events).map(([, text]) => text)).toEqual(['Dear Ada', 'Shouting.']);
    const final = events.at(-1)!.payload;
    expect(final?.$case === 'statusUpdate' && TaskState[final.value.status!.state]).toBe('TASK_STATE_COMPLETED');
    expect(final?.$case === 'statusUpdate' && textsOf(final.value.status?.message?.parts)).toEqual([
      'DEAR ADA -- Troupe',
    ]);
  });

  it('a RequestInput makes the task input-required with its adk_request_input request; { interruptId, value } on the task completes it', async () => {
    const asked: string[] = [];
    const ask = node(
      (_ctx, topic: string) => {
        asked.push(topic);
        return new RequestInput({ message: `Who should hear about ${topic}?` });
      },
      { name: 'ask' },
    );
    const tell = node((_ctx, name: string) => `Told ${name}.`, { name: 'tell' });
    const baseUrl = await serveWorkflow(new Workflow({ name: 'news', edges: [['START', ask, tell]] }));
    const client = await sdkClient(baseUrl);

    const paused = asTask(await client.sendMessage(message('the launch')));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [request] = dataOf(paused.status?.message?.parts) as { interruptId: string }[];
    expect(request).toMatchObject({
      interruptId: 'news.ask@1',
      kind: 'input',
      toolName: 'adk_request_input',
      args: { interruptId: 'news.ask@1', message: 'Who should hear about the launch?' },
    });

    const events = await collect(
      client.sendMessageStream(
        message([data({ interruptId: request!.interruptId, value: 'Ada' })], {
          taskId: paused.id,
          contextId: paused.contextId,
        }),
      ),
    );
    const final = events.at(-1)!.payload;
    expect(final?.$case === 'statusUpdate' && TaskState[final.value.status!.state]).toBe('TASK_STATE_COMPLETED');
    expect(final?.$case === 'statusUpdate' && textsOf(final.value.status?.message?.parts)).toEqual(['Told Ada.']);
    expect(asked).toEqual(['the launch']);
  });
});
