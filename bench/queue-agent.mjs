// The agent of bench/queue.mjs: three steps that answer at once, so what is measured is the path a
// run takes (queue, worker, store, stream), not the work.

/** A SequentialAgent of three instant FunctionAgents, built with the given `@troupe/core` module. */
export function threeStepAgent(core) {
  const step = (name) => new core.FunctionAgent({ name, run: () => `${name} done` });
  return new core.SequentialAgent({ name: 'ThreeSteps', subAgents: [step('one'), step('two'), step('three')] });
}
