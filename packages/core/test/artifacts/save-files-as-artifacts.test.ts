import { describe, expect, it } from 'vitest';
import {
  BasePlugin,
  ConfigurationError,
  FunctionTool,
  InMemoryArtifactService,
  InMemorySessionService,
  LlmAgent,
  Runner,
  SaveFilesAsArtifactsPlugin,
  getFunctionResponses,
  type Content,
  type Part,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

const CSV = 'region,sales\nnorth,10\nsouth,32\n';
const csvPart = (displayName?: string): Part => ({
  inlineData: {
    mimeType: 'text/csv',
    data: Buffer.from(CSV).toString('base64'),
    ...(displayName === undefined ? {} : { displayName }),
  },
});

async function setUp(model: ScriptedModel, options: { artifacts?: boolean; plugins?: BasePlugin[] } = {}) {
  const readCsv = new FunctionTool({
    name: 'read_upload',
    description: 'Reads an uploaded file.',
    execute: async (_args, ctx) => {
      const part = await ctx.loadArtifact('sales.csv');
      return { text: part && 'inlineData' in part ? Buffer.from(part.inlineData.data, 'base64').toString() : null };
    },
  });
  const agent = new LlmAgent({ name: 'analyst', model, tools: [readCsv] });
  const sessionService = new InMemorySessionService();
  const artifactService = new InMemoryArtifactService();
  const runner = new Runner({
    appName: 'app',
    agent,
    sessionService,
    ...(options.artifacts === false ? {} : { artifactService }),
    plugins: options.plugins ?? [new SaveFilesAsArtifactsPlugin()],
  });
  const session = await sessionService.createSession({ appName: 'app', userId: 'u' });
  const run = (parts: Part[]) =>
    runner.run({ userId: 'u', sessionId: session.id, newMessage: { role: 'user', parts } satisfies Content });
  const stored = async () =>
    (await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events;
  return { artifactService, session, run, stored };
}

describe('SaveFilesAsArtifactsPlugin', () => {
  it('saves an uploaded file as an artifact by its name; the message keeps a reference, models never see the bytes, tools read the file', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'read_upload' }] }, 'North sold 10.']);
    const { artifactService, session, run, stored } = await setUp(model);
    const result = await run([{ text: 'Summarise this.' }, csvPart('reports/sales.csv')]);

    expect(result.status, String(result.error)).toBe('completed');
    const saved = await artifactService.loadArtifact({
      appName: 'app',
      userId: 'u',
      sessionId: session.id,
      filename: 'sales.csv',
    });
    // Stores keep the bytes and their type.
    expect(saved).toEqual({ inlineData: { mimeType: 'text/csv', data: Buffer.from(CSV).toString('base64') } });

    const [user] = await stored();
    expect(user!.content!.parts).toEqual([
      { text: 'Summarise this.' },
      { text: '[Uploaded file "sales.csv" (text/csv), saved as artifact "sales.csv" version 0]' },
    ]);
    expect(user!.actions.artifactDelta).toEqual({ 'sales.csv': 0 });
    for (const request of model.requests) {
      expect(JSON.stringify(request.contents)).not.toContain('inlineData');
    }
    expect(getFunctionResponses(result.events.find((e) => getFunctionResponses(e).length > 0)!)[0]!.response).toEqual({
      text: CSV,
    });
  });

  it('names a file without a name after the invocation, with its type’s extension', async () => {
    const { session, run, artifactService } = await setUp(new ScriptedModel(['Got it.']));
    const result = await run([csvPart()]);
    const keys = await artifactService.listArtifactKeys({ appName: 'app', userId: 'u', sessionId: session.id });
    expect(keys).toEqual([`upload_${result.invocationId}_0.csv`]);
  });

  it('leaves a message without files as it is', async () => {
    const model = new ScriptedModel(['Hello.']);
    const { run, stored } = await setUp(model);
    await run([{ text: 'Hi' }]);
    const [user] = await stored();
    expect(user!.content!.parts).toEqual([{ text: 'Hi' }]);
    expect(user!.actions.artifactDelta).toEqual({});
  });

  it('without an artifact service the run fails with the remedy, and nothing is stored', async () => {
    const model = new ScriptedModel(['never']);
    const { run, stored } = await setUp(model, { artifacts: false });
    const result = await run([csvPart('sales.csv')]);
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(ConfigurationError);
    expect(result.error!.message).toMatch(/artifactService: new InMemoryArtifactService\(\)/);
    expect(await stored()).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it('onUserMessage: the first plugin that answers rewrites the stored message and what agents see', async () => {
    class Redact extends BasePlugin {
      constructor() {
        super('redact');
      }
      override onUserMessage({ message }: { message: Content }): Content {
        return {
          ...message,
          parts: message.parts.map((p) => ('text' in p ? { text: p.text.replace(/\d{4}/g, '####') } : p)),
        };
      }
    }
    const model = new ScriptedModel(['Noted.']);
    const { run, stored } = await setUp(model, { plugins: [new Redact()] });
    await run([{ text: 'My PIN is 1234' }]);
    expect((await stored())[0]!.content!.parts).toEqual([{ text: 'My PIN is ####' }]);
    expect(JSON.stringify(model.requests[0]!.contents)).not.toContain('1234');
  });
});
