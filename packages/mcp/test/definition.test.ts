import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AgentDefinitionError, LlmAgent, getFunctionResponses, loadAgent, registerToolEntry } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { MCPToolset, createMcpToolEntry, mcpToolEntry, type MCPStderrLine } from '@troupe/mcp';
import { chat, isAlive, logFile, pids } from './helpers.js';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

async function loadError(name: string): Promise<AgentDefinitionError> {
  const error: unknown = await loadAgent(fixture(name)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AgentDefinitionError);
  return error as AgentDefinitionError;
}

describe("agent definitions: tools: [{ mcp: ... }] (registered by import '@troupe/mcp')", () => {
  it('loads an mcp entry as an MCPToolset (paths relative to the file, ${VAR} in env) and runs its tools', async () => {
    const log = logFile();
    process.env.TROUPE_MCP_TEST_LOG = log;
    const model = new ScriptedModel([{ functionCalls: [{ name: 'calc_add', args: { a: 20, b: 22 } }] }, 'It is 42.']);
    const agent = await loadAgent(fixture('calculator.yaml'), { model });
    expect(agent).toBeInstanceOf(LlmAgent);
    const [toolset] = (agent as LlmAgent).toolsets;
    expect(toolset).toBeInstanceOf(MCPToolset);
    expect((toolset as MCPToolset).server).toBe('`node …`');

    const { runner, turn } = await chat(agent);
    const result = await turn('What is 20 + 22?');
    expect(result.status).toBe('completed');
    expect(model.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['calc_add', 'calc_echo']);
    expect(result.events.flatMap(getFunctionResponses).map((r) => r.response)).toEqual([
      { result: '42', structuredContent: { sum: 42 } },
    ]);
    expect(result.output).toBe('It is 42.');

    const [pid] = pids(log); // the server got the env of the entry
    await runner.close();
    expect(isAlive(pid!)).toBe(false);
  });

  it("a bad mcp entry is reported at the entry's file, line and key, with the fix", async () => {
    const missing = await loadError('bad-mcp-entry.yaml');
    expect(missing).toMatchObject({ file: fixture('bad-mcp-entry.yaml'), line: 4, key: 'tools[1].mcp' });
    expect(missing.message).toContain(`tools[1].mcp: MCPToolset needs 'command' (e.g. { command: 'npx', args: [`);

    const unknown = await loadError('bad-mcp-key.yaml');
    expect(unknown).toMatchObject({ line: 3, key: 'tools[0].mcp' });
    expect(unknown.message).toContain(
      `unknown key 'arguments' in an 'mcp' entry. Its keys are command, args, env, cwd (to start a server), url, headers (to reach one), and tool_filter, prefix, timeout_ms.`,
    );

    delete process.env.TROUPE_MCP_UNSET_TOKEN;
    const unset = await loadError('unset-variable.yaml');
    expect(unset.message).toContain(
      `'headers.Authorization' uses \${TROUPE_MCP_UNSET_TOKEN}, but the environment variable TROUPE_MCP_UNSET_TOKEN is not set.`,
    );
  });

  it("createMcpToolEntry gives every mcp entry the program's onStderr (how a CLI or server logs servers' stderr)", async () => {
    const lines: MCPStderrLine[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'troupe-mcp-entry-'));
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      `name: Failing\ntools:\n  - mcp: { command: node, args: [${JSON.stringify(fixture('failing-server.mjs'))}] }\n`,
    );
    registerToolEntry('mcp', createMcpToolEntry({ onStderr: (line) => lines.push(line) }));
    try {
      const agent = await loadAgent(file, { model: new ScriptedModel([]) });
      const result = await (await chat(agent)).turn('go');
      expect(result.status).toBe('failed');
      expect(lines.map((l) => l.line)).toContain('fatal: config read from /srv/internal/mcp-config.json');
    } finally {
      registerToolEntry('mcp', mcpToolEntry);
    }
  });
});
