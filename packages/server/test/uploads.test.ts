import { describe, expect, it } from 'vitest';
import { InMemoryArtifactService, InMemorySessionService, LlmAgent, SaveFilesAsArtifactsPlugin } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { createApp } from '../src/index.js';

// Files a chat client uploads keep their names on the way in (`inlineData.displayName`), so an app
// with SaveFilesAsArtifactsPlugin stores each as the artifact of that name and its models get a
// reference instead of the bytes.

const CSV = 'region,units\nNorth,120\n';
const dataUrl = `data:text/csv;base64,${Buffer.from(CSV).toString('base64')}`;

function uploadApp() {
  const model = new ScriptedModel(['Got it.']);
  const sessionService = new InMemorySessionService();
  const artifactService = new InMemoryArtifactService();
  const app = createApp({
    apps: { chat: new LlmAgent({ name: 'assistant', model }) },
    sessionService,
    artifactService,
    openai: true,
    plugins: [new SaveFilesAsArtifactsPlugin()],
  });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  return { model, sessionService, artifactService, post };
}

const REFERENCE = '[Uploaded file "sales.csv" (text/csv), saved as artifact "sales.csv" version 0]';

describe('uploads keep their names', () => {
  it('AI SDK /chat: a file part’s filename names the artifact', async () => {
    const { model, artifactService, post } = uploadApp();
    const res = await post('/apps/chat/users/u/sessions/c1/chat', {
      messages: [
        {
          id: 'm1',
          role: 'user',
          parts: [
            { type: 'text', text: 'Summarise this' },
            { type: 'file', mediaType: 'text/csv', filename: 'sales.csv', url: dataUrl },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    await res.text();
    const saved = await artifactService.loadArtifact({
      appName: 'chat',
      userId: 'u',
      sessionId: 'c1',
      filename: 'sales.csv',
    });
    expect(saved).toEqual({ inlineData: { mimeType: 'text/csv', data: Buffer.from(CSV).toString('base64') } });
    expect(model.requests[0]!.contents.at(-1)!.parts).toEqual([{ text: 'Summarise this' }, { text: REFERENCE }]);
  });

  it('OpenAI chat completions: a file content part’s filename names the artifact', async () => {
    const { model, artifactService, post } = uploadApp();
    const res = await post('/v1/chat/completions', {
      model: 'chat',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Summarise this' },
            { type: 'file', file: { filename: 'sales.csv', file_data: dataUrl } },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const sessionId = res.headers.get('X-Session-Id')!;
    const saved = await artifactService.loadArtifact({
      appName: 'chat',
      userId: 'openai',
      sessionId,
      filename: 'sales.csv',
    });
    expect(saved).toEqual({ inlineData: { mimeType: 'text/csv', data: Buffer.from(CSV).toString('base64') } });
    expect(model.requests[0]!.contents.at(-1)!.parts).toEqual([{ text: 'Summarise this' }, { text: REFERENCE }]);
  });
});
