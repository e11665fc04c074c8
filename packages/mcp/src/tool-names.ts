import { createHash } from 'node:crypto';

const MAX_LENGTH = 64;

/**
 * The names an agent offers for a server's tools, in order: `<prefix>_<name>` (or the name), with
 * characters a tool name cannot have replaced by `_`, at most 64 characters, each unique.
 */
export function toolNames(serverNames: readonly string[], prefix: string | undefined): string[] {
  const used = new Set<string>();
  return serverNames.map((serverName) => {
    const base = validName(prefix === undefined ? serverName : `${prefix}_${serverName}`);
    let name = base;
    for (let n = 2; used.has(name); n++) name = fit(base, `_${n}`);
    used.add(name);
    return name;
  });
}

function validName(raw: string): string {
  let name = raw.replace(/[^A-Za-z0-9_.-]/g, '_');
  if (!/^[A-Za-z_]/.test(name)) name = `_${name}`;
  // A long name keeps its start and gets a hash of the whole, so two long names stay apart.
  return name.length <= MAX_LENGTH ? name : fit(name, `_${createHash('sha256').update(raw).digest('hex').slice(0, 8)}`);
}

function fit(name: string, suffix: string): string {
  return name.slice(0, MAX_LENGTH - suffix.length) + suffix;
}
