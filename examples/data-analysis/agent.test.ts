import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  getFunctionResponses,
  InMemoryArtifactService,
  InMemoryRunner,
  InMemorySessionService,
  Runner,
  SaveFilesAsArtifactsPlugin,
  type RunResult,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { analyst } from './agent.js';

const CSV = readFileSync(new URL('./sales.csv', import.meta.url));
const SCRIPT_ARGS = ['sales.csv', '--chart', 'revenue', '--by', 'region'];

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

/** The analyst's run on a message with sales.csv attached, as `troupe run --attach` sends it. */
async function start(options: { allowCodeExecution?: boolean } = {}) {
  const root = await mkdtemp(join(tmpdir(), 'troupe-data-analysis-'));
  roots.push(root);
  const model = new ScriptedModel([
    { functionCalls: [{ name: 'load_skill', args: { name: 'csv-summary' } }] },
    {
      functionCalls: [
        {
          name: 'run_skill_script',
          args: { name: 'csv-summary', script: 'summarize.py', args: SCRIPT_ARGS, input_files: ['sales.csv'] },
        },
      ],
    },
    'Revenue was 3850 in total: North 1840, East 1380, South 630. The chart is chart.svg.',
  ]);
  const sessionService = new InMemorySessionService();
  const artifactService = new InMemoryArtifactService();
  const runner = new Runner({
    appName: 'data-analysis',
    agent: analyst({ root, ...options }),
    sessionService,
    artifactService,
    defaultModel: model,
    plugins: [new SaveFilesAsArtifactsPlugin()],
  });
  const session = await sessionService.createSession({ appName: 'data-analysis', userId: 'u' });
  const first = await runner.run({
    userId: 'u',
    sessionId: session.id,
    newMessage: {
      role: 'user',
      parts: [
        { text: 'Summarise this file and chart revenue by region.' },
        { inlineData: { mimeType: 'text/csv', data: CSV.toString('base64'), displayName: 'sales.csv' } },
      ],
    },
  });
  const artifact = (filename: string) =>
    artifactService.loadArtifact({ appName: 'data-analysis', userId: 'u', sessionId: session.id, filename });
  return { runner, model, sessionId: session.id, first, artifact };
}

const scriptResponse = (result: RunResult) =>
  result.events.flatMap((e) => getFunctionResponses(e)).find((r) => r.name === 'run_skill_script')?.response;

describe('data analysis with a skill that runs code', () => {
  it('lists the skill, loads it when asked, pauses to run its script with the code shown, and on approval computes the summary and saves the chart', async () => {
    const { runner, model, sessionId, first, artifact } = await start();
    expect(model.requests[0]!.config.systemInstruction).toContain('- csv-summary: Summarises a CSV file');
    expect(JSON.stringify(model.requests[0]!.contents)).not.toContain('# CSV summary');
    expect(JSON.stringify(model.requests[1]!.contents)).toContain('# CSV summary');

    expect(first.status).toBe('interrupted');
    const [approval] = first.interrupts;
    expect(approval).toMatchObject({
      kind: 'confirmation',
      toolName: 'run_skill_script',
      hint: `Run scripts/summarize.py of skill 'csv-summary' with ${JSON.stringify(SCRIPT_ARGS)}?`,
      payload: { language: 'python', args: SCRIPT_ARGS },
    });
    expect((approval!.payload as { code: string }).code).toContain('def summarise(');
    expect(await artifact('chart.svg')).toBeUndefined();

    const done = await runner.resume({ userId: 'u', sessionId, responses: { [approval!.id]: true } });
    expect(done.status).toBe('completed');
    const response = scriptResponse(done) as {
      exitCode: number;
      stdout: string;
      files: { path: string; artifact?: string }[];
    };
    expect(response.exitCode).toBe(0);
    const summary = JSON.parse(response.stdout) as {
      rows: number;
      columns: { name: string; total?: number }[];
      chart: { bars: { label: string; total: number }[] };
    };
    expect(summary.rows).toBe(6);
    expect(summary.columns.find((c) => c.name === 'revenue')!.total).toBe(3850);
    expect(summary.chart.bars).toEqual([
      { label: 'North', total: 1840 },
      { label: 'South', total: 630 },
      { label: 'East', total: 1380 },
    ]);
    expect(response.files.map((f) => [f.path, f.artifact])).toEqual([
      ['chart.svg', 'chart.svg'],
      ['summary.json', 'summary.json'],
    ]);
    const chart = await artifact('chart.svg');
    expect(chart && 'inlineData' in chart && chart.inlineData.mimeType).toBe('image/svg+xml');
    expect(Buffer.from((chart as { inlineData: { data: string } }).inlineData.data, 'base64').toString()).toContain(
      '<text x="8" y="16" font-weight="bold">revenue by region</text>',
    );
    expect(done.output).toBe('Revenue was 3850 in total: North 1840, East 1380, South 630. The chart is chart.svg.');
  });

  it('a rejected script never runs: no summary, no chart', async () => {
    const { runner, sessionId, first, artifact } = await start();
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [first.interrupts[0]!.id]: false } });
    expect(done.status).toBe('completed');
    expect(scriptResponse(done)).toMatchObject({ error: expect.stringMatching(/reject/i) });
    expect(await artifact('chart.svg')).toBeUndefined();
    expect(await artifact('summary.json')).toBeUndefined();
  });

  it('with allowCodeExecution the script runs without asking', async () => {
    const { first, artifact } = await start({ allowCodeExecution: true });
    expect(first.status).toBe('completed');
    expect(scriptResponse(first)).toMatchObject({ exitCode: 0 });
    expect(await artifact('summary.json')).toBeDefined();
  });

  it('with the offline demo model (no key), asking for its skills lists them', async () => {
    const root = await mkdtemp(join(tmpdir(), 'troupe-data-analysis-'));
    roots.push(root);
    const runner = new InMemoryRunner({ agent: analyst({ root }), defaultModel: 'offline' });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Which skills do you have?' });
    expect(result.status).toBe('completed');
    const listed = result.events.flatMap((e) => getFunctionResponses(e)).find((r) => r.name === 'list_skills');
    expect(listed?.response).toEqual({
      skills: [{ name: 'csv-summary', description: expect.stringMatching(/^Summarises a CSV file/) }],
    });
    expect(result.output).toMatch(/^Here is what I found: list_skills returned/);
  });
});
