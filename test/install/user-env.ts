/**
 * The environment of a user's shell for commands run in a created project: none of this test
 * run's vitest or npm variables (npm_config_* from the outer `npm test` would steer the inner npm).
 */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(VITEST|npm_|TEST$|NODE_ENV$)/.test(key)) env[key] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', NO_COLOR: '1' };
}
