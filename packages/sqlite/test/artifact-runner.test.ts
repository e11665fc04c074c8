import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, LlmAgent, Runner, getFunctionResponses, loadArtifactsTool, type Part } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteArtifactService, SqliteSessionService } from '../src/index.js';

// A 1×1 PNG: the bytes a chart tool would produce.
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const PNG_PART: Part = { inlineData: { mimeType: 'image/png', data: PIXEL.toString('base64') } };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An agent that draws a chart (saving a PNG), measures it (loading it back) and can load artifacts for its model. */
function chartAgent(model: ScriptedModel, measured: number[]) {
  const draw = new FunctionTool({
    name: 'draw_chart',
    description: 'Draws a chart as a PNG.',
    parameters: z.object({}),
    execute: async (_args, ctx) => ({
      version: await ctx.saveArtifact('chart.png', {
        inlineData: { mimeType: 'image/png', data: PIXEL.toString('base64') },
      }),
    }),
  });
  const measure = new FunctionTool({
    name: 'measure_chart',
    description: 'Says how big the chart is.',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      const chart = await ctx.loadArtifact('chart.png');
      if (!chart || !('inlineData' in chart)) return { error: 'no chart' };
      const bytes = Buffer.from(chart.inlineData.data, 'base64').byteLength;
      measured.push(bytes);
      return { bytes, mimeType: chart.inlineData.mimeType };
    },
  });
  return new LlmAgent({
    name: 'charts',
    model,
    instruction: 'Draw charts.',
    tools: [draw, measure, loadArtifactsTool],
  });
}

async function open(path: string) {
  const sessionService = new SqliteSessionService({ path });
  const artifactService = new SqliteArtifactService({ path });
  closers.push(async () => {
    await artifactService.close();
    await sessionService.close();
  });
  return { sessionService, artifactService };
}

it('a tool saves a PNG, a later turn loads it, load_artifacts shows it to the model, and a new Runner over the same SQLite file sees it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-artifact-runner-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'troupe.db');
  const measured: number[] = [];

  const model = new ScriptedModel([
    { functionCalls: [{ name: 'draw_chart', id: 'draw-1' }] },
    'Here is your chart.',
    { functionCalls: [{ name: 'measure_chart', id: 'measure-1' }] },
    'It is small.',
  ]);
  const first = await open(path);
  const runner = new Runner({
    appName: 'charts',
    agent: chartAgent(model, measured),
    sessionService: first.sessionService,
    artifactService: first.artifactService,
  });
  const session = await first.sessionService.createSession({ appName: 'charts', userId: 'ada', sessionId: 'c1' });

  const drawn = await runner.run({ userId: 'ada', sessionId: session.id, newMessage: 'Draw a chart.' });
  expect(drawn.status).toBe('completed');
  const drawEvent = drawn.events.find((e) => getFunctionResponses(e).some((r) => r.name === 'draw_chart'))!;
  expect(getFunctionResponses(drawEvent)[0]!.response).toEqual({ version: 0 });
  expect(drawEvent.actions.artifactDelta).toEqual({ 'chart.png': 0 });
  // The model's next request lists the artifact for it (load_artifacts' note).
  expect(model.requests[1]!.config.systemInstruction).toContain('You have these artifacts: ["chart.png"]');

  const later = await runner.run({ userId: 'ada', sessionId: session.id, newMessage: 'How big is it?' });
  expect(later.status).toBe('completed');
  expect(measured).toEqual([PIXEL.byteLength]);
  expect(later.events.flatMap(getFunctionResponses).find((r) => r.name === 'measure_chart')!.response).toEqual({
    bytes: PIXEL.byteLength,
    mimeType: 'image/png',
  });

  // Another process: new services over the same file, a new Runner, and a model that asks to see the chart.
  const second = await open(path);
  const viewer = new ScriptedModel([
    { functionCalls: [{ name: 'load_artifacts', id: 'load-1', args: { artifact_names: ['chart.png'] } }] },
    'A single pixel.',
  ]);
  const again = new Runner({
    appName: 'charts',
    agent: chartAgent(viewer, measured),
    sessionService: second.sessionService,
    artifactService: second.artifactService,
  });
  const viewed = await again.run({ userId: 'ada', sessionId: 'c1', newMessage: 'What does the chart show?' });
  expect(viewed.status).toBe('completed');
  expect(viewed.output).toBe('A single pixel.');
  expect(viewer.requests[0]!.config.systemInstruction).toContain('You have these artifacts: ["chart.png"]');
  expect(viewer.requests[1]!.contents.at(-1)).toEqual({
    role: 'user',
    parts: [{ text: 'Artifact chart.png is:' }, PNG_PART],
  });

  // The stored session carries the delta; the artifact store has the one version.
  const stored = await second.sessionService.getSession({ appName: 'charts', userId: 'ada', sessionId: 'c1' });
  expect(
    stored!.events.filter((e) => Object.keys(e.actions.artifactDelta).length > 0).map((e) => e.actions.artifactDelta),
  ).toEqual([{ 'chart.png': 0 }]);
  expect(
    await second.artifactService.listVersions({
      appName: 'charts',
      userId: 'ada',
      sessionId: 'c1',
      filename: 'chart.png',
    }),
  ).toEqual([0]);
});
