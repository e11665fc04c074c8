/** What one `docker run` of a script needs. */
export interface DockerRunSpec {
  /** The container's name (so a timeout can `docker kill` it). */
  name: string;
  image: string;
  /** The working folder on this machine, mounted at `/workspace`. */
  folder: string;
  /** The program inside the image (`python3`, `node`, `bash`). */
  interpreter: string;
  /** The script's file name in the working folder. */
  script: string;
  args: readonly string[];
  /** Names of variables the container gets; their values come from the `docker` process's environment. */
  envNames: readonly string[];
  /** `uid:gid` the program runs as, so the files it writes belong to this machine's user. */
  user?: string | undefined;
  /** Memory limit (`--memory`), e.g. `'1g'`. */
  memory?: string | undefined;
  /** CPU limit (`--cpus`). */
  cpus?: number | undefined;
  /** Process limit (`--pids-limit`): a fork bomb stops there. */
  pidsLimit?: number | undefined;
}

/**
 * The arguments of `docker` for one run: no network, only the working folder mounted (read-write at
 * `/workspace`, the working directory), no added privileges, all capabilities dropped, the resource
 * limits given, HOME set to `/workspace`, and the variables passed by name only (`-e NAME`), so
 * their values never appear on a command line.
 */
export function dockerArgs(spec: DockerRunSpec): string[] {
  const args = ['run', '--rm', '--name', spec.name, '--network', 'none'];
  args.push('-v', `${spec.folder}:/workspace`, '-w', '/workspace');
  args.push('--security-opt', 'no-new-privileges', '--cap-drop', 'ALL');
  if (spec.user !== undefined) args.push('--user', spec.user);
  if (spec.memory !== undefined) args.push('--memory', spec.memory);
  if (spec.cpus !== undefined) args.push('--cpus', String(spec.cpus));
  if (spec.pidsLimit !== undefined) args.push('--pids-limit', String(spec.pidsLimit));
  args.push('-e', 'HOME=/workspace');
  for (const name of spec.envNames) args.push('-e', name);
  args.push(spec.image, spec.interpreter, spec.script, ...spec.args);
  return args;
}
