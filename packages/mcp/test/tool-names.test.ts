import { describe, expect, it } from 'vitest';
import { FunctionTool } from '@troupe/core';
import { toolNames } from '../src/tool-names.js';

describe('tool names offered for an MCP server’s tools', () => {
  it('applies the prefix and keeps valid names as they are', () => {
    expect(toolNames(['read_file', 'list.dir', 'a-b'], undefined)).toEqual(['read_file', 'list.dir', 'a-b']);
    expect(toolNames(['read_file'], 'fs')).toEqual(['fs_read_file']);
  });

  it('turns any server name into a valid, unique tool name of at most 64 characters', () => {
    const long = 'x'.repeat(80);
    const names = toolNames(['get weather/now', '2fa', 'get_weather_now', `${long}a`, `${long}b`, 'météo'], undefined);
    expect(names.slice(0, 3)).toEqual(['get_weather_now', '_2fa', 'get_weather_now_2']);
    expect(names[3]).toHaveLength(64);
    expect(names[3]).not.toBe(names[4]);
    expect(names[5]).toBe('m_t_o');
    // Each is accepted as a tool name.
    for (const name of names) expect(new FunctionTool({ name, description: '', execute: () => null }).name).toBe(name);
  });
});
