import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  codeExecutionTool,
  ConfigurationError,
  getFunctionResponses,
  InMemoryArtifactService,
  InMemorySessionService,
  LlmAgent,
  LocalProcessExecutor,
  Runner,
  SaveFilesAsArtifactsPlugin,
  type ArtifactService,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';

const WRITE_AND_PRINT = 'open("result.txt", "w").write("forty-two")\nprint(6 * 7)';

async function setup(options: { allowCodeExecution?: boolean; artifactService?: ArtifactService } = {}) {
  const executor = new LocalProcessExecutor({ root: tempDir('troupe-tool-') });
  const model = new ScriptedModel([
    { functionCalls: [{ name: 'execute_code', args: { language: 'python', code: WRITE_AND_PRINT }, id: 'c1' }] },
    'It printed 42.',
  ]);
  const agent = new LlmAgent({
    name: 'Analyst',
    model,
    tools: [codeExecutionTool({ executor, languages: ['python', 'bash'] })],
    ...(options.allowCodeExecution === undefined ? {} : { allowCodeExecution: options.allowCodeExecution }),
  });
  const sessionService = new InMemorySessionService();
  const runner = new Runner({
    appName: 'lab',
    agent,
    sessionService,
    ...(options.artifactService ? { artifactService: options.artifactService } : {}),
  });
  const session = await sessionService.createSession({ appName: 'lab', userId: 'u' });
  const folder = executor.workspacePath(`lab/u/${session.id}`);
  return { runner, model, sessionId: session.id, userId: 'u', folder };
}

describe('codeExecutionTool', () => {
  it('offers execute_code with the languages both it and the executor allow', async () => {
    const executor = new LocalProcessExecutor({ root: tempDir('troupe-tool-'), languages: ['python', 'node'] });
    const tool = codeExecutionTool({ executor, languages: ['python', 'bash'] });
    expect(await tool.getDeclaration()).toEqual({
      name: 'execute_code',
      description: expect.any(String),
      parameters: {
        type: 'object',
        properties: {
          language: { type: 'string', enum: ['python'], description: expect.any(String) },
          code: { type: 'string', description: expect.any(String) },
          input_files: { type: 'array', items: { type: 'string' }, description: expect.any(String) },
        },
        required: ['language', 'code'],
      },
    });
    expect(() => codeExecutionTool({ executor, languages: ['bash'] })).toThrow(ConfigurationError);
    expect(() => codeExecutionTool({ executor, languages: ['bash'] })).toThrow(/runs only \["python","node"\]/);
    expect(() => codeExecutionTool({ executor: {} as never })).toThrow(/option 'executor' must be a CodeExecutor/);
  });

  it('pauses for approval with the code in the interrupt; approval runs it once and the output reaches the model', async () => {
    const { runner, model, sessionId, userId, folder } = await setup();
    const paused = await runner.run({ userId, sessionId, newMessage: 'compute' });
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts).toEqual([
      expect.objectContaining({
        kind: 'confirmation',
        toolName: 'execute_code',
        hint: 'Run this python code?',
        payload: { language: 'python', code: WRITE_AND_PRINT },
      }),
    ]);
    expect(paused.events.at(-1)!.interrupt!.payload).toEqual({ language: 'python', code: WRITE_AND_PRINT });
    expect(existsSync(join(folder, 'result.txt'))).toBe(false);

    const resumed = await runner.resume({ userId, sessionId, responses: { [paused.interrupts[0]!.id]: true } });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('It printed 42.');
    const responses = resumed.events.flatMap(getFunctionResponses);
    expect(responses).toEqual([
      {
        id: 'c1',
        name: 'execute_code',
        response: {
          exitCode: 0,
          stdout: '42\n',
          stderr: '',
          timedOut: false,
          truncated: false,
          files: [{ path: 'result.txt', size: 9 }],
        },
      },
    ]);
    expect(JSON.stringify(model.requests[1]!.contents)).toContain('42\\n');
  });

  it('a rejected run never starts: the file the code would write does not exist', async () => {
    const { runner, sessionId, userId, folder } = await setup();
    const paused = await runner.run({ userId, sessionId, newMessage: 'compute' });
    const resumed = await runner.resume({ userId, sessionId, responses: { [paused.interrupts[0]!.id]: false } });
    expect(resumed.status).toBe('completed');
    const [response] = resumed.events.flatMap(getFunctionResponses);
    expect(response!.response).toEqual({
      error: "The user rejected this call of tool 'execute_code'; it did not run.",
    });
    expect(existsSync(join(folder, 'result.txt'))).toBe(false);
  });

  it('runs without asking when the agent has allowCodeExecution: true, and saves written files as artifacts', async () => {
    const artifactService = new InMemoryArtifactService();
    const { runner, sessionId, userId } = await setup({ allowCodeExecution: true, artifactService });
    const result = await runner.run({ userId, sessionId, newMessage: 'compute' });
    expect(result.status).toBe('completed');
    expect(result.interrupts).toEqual([]);
    const responseEvent = result.events.find((e) => getFunctionResponses(e).length > 0)!;
    expect(getFunctionResponses(responseEvent)[0]!.response).toMatchObject({
      exitCode: 0,
      stdout: '42\n',
      files: [{ path: 'result.txt', size: 9, artifact: 'result.txt' }],
    });
    expect(responseEvent.actions.artifactDelta).toEqual({ 'result.txt': 0 });
    const saved = await artifactService.loadArtifact({ appName: 'lab', userId, sessionId, filename: 'result.txt' });
    expect(saved).toEqual({
      inlineData: { mimeType: 'text/plain', data: Buffer.from('forty-two').toString('base64') },
    });
  });

  it('answers the model with an error for a language it does not offer, running nothing', async () => {
    const executor = new LocalProcessExecutor({ root: tempDir('troupe-tool-') });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'execute_code', args: { language: 'node', code: 'console.log(1)' }, id: 'c1' }] },
      'Sorry.',
    ]);
    const agent = new LlmAgent({
      name: 'Analyst',
      model,
      allowCodeExecution: true,
      tools: [codeExecutionTool({ executor, languages: ['python'] })],
    });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: 'lab', agent, sessionService });
    const session = await sessionService.createSession({ appName: 'lab', userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
    expect(result.events.flatMap(getFunctionResponses)[0]!.response).toEqual({
      error: 'execute_code runs python; got language "node". Call it again with one of those.',
    });
  });

  it('refuses a non-boolean allowCodeExecution on the agent', () => {
    expect(() => new LlmAgent({ name: 'A', allowCodeExecution: 'yes' as never })).toThrow(
      /option 'allowCodeExecution' must be true or false; got/,
    );
  });

  it('input_files places the session’s artifacts (a file the user sent) in the working folder; an unknown name fails before anything is asked', async () => {
    const executor = new LocalProcessExecutor({ root: tempDir('troupe-tool-') });
    const count = 'import csv\nprint(sum(int(r["units"]) for r in csv.DictReader(open("sales.csv"))))';
    const model = new ScriptedModel([
      {
        functionCalls: [{ name: 'execute_code', args: { language: 'python', code: count, input_files: ['nope.csv'] } }],
      },
      {
        functionCalls: [
          { name: 'execute_code', args: { language: 'python', code: count, input_files: ['sales.csv'] } },
        ],
      },
      'They sold 200 units.',
    ]);
    const agent = new LlmAgent({
      name: 'Analyst',
      model,
      tools: [codeExecutionTool({ executor })],
      allowCodeExecution: true,
    });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: 'lab',
      agent,
      sessionService,
      artifactService: new InMemoryArtifactService(),
      plugins: [new SaveFilesAsArtifactsPlugin()],
    });
    const session = await sessionService.createSession({ appName: 'lab', userId: 'u' });
    const csv = Buffer.from('region,units\nNorth,120\nSouth,80\n').toString('base64');
    const result = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: {
        role: 'user',
        parts: [
          { text: 'Total units?' },
          { inlineData: { mimeType: 'text/csv', data: csv, displayName: 'sales.csv' } },
        ],
      },
    });
    expect(result.status).toBe('completed');
    const [missing, ran] = result.events.flatMap((e) => getFunctionResponses(e)).map((r) => r.response);
    expect(missing).toEqual({
      error: expect.stringContaining(
        'Input file "nope.csv" is not an artifact of this session; its artifacts are "sales.csv".',
      ),
    });
    expect(ran).toMatchObject({ exitCode: 0, stdout: '200\n', files: [] });
  });
});
