import { TeamAgent } from '../agents/team/team-agent.js';
import type { AgentPlan, Compiler, Scope } from './agent-plan.js';
import { readSchema, type DefinitionCommon } from './build-common.js';
import type { MapReader } from './read-values.js';

/** The keys of a `reflection:` mapping. */
const REFLECTION_KEYS = ['reviewer', 'isApproved', 'maxIterations', 'returnLastOnMaxIterations', 'customErrorMessage'];

/** Reads a `type: team` definition (seed 002, AIGNE's TeamAgent options). */
export async function compileTeam(
  compiler: Compiler,
  r: MapReader,
  scope: Scope,
  common: DefinitionCommon,
): Promise<AgentPlan> {
  const skillItems = r.list('skills', '[./research.yaml, ./summary.js]');
  if (skillItems === undefined || skillItems.length === 0) {
    r.fail(
      'skills',
      `a team needs at least one skill in '${r.shown('skills')}': paths to agent files or inline definitions, e.g. '${r.shown('skills')}: [./research.yaml, ./summary.js]'.`,
    );
  }
  const mode = r.oneOf('mode', ['sequential', 'parallel'] as const);
  const iterateOn = r.word('iterateOn', 'sections');
  const concurrency = r.integer('concurrency', 1, 2);
  const iterateWithPreviousOutput = r.boolean('iterateWithPreviousOutput');
  if (iterateWithPreviousOutput && (concurrency ?? 1) !== 1) {
    r.fail(
      'iterateWithPreviousOutput',
      `'${r.shown('iterateWithPreviousOutput')}: true' carries each item's result into the next item, so items run one at a time, but '${r.shown('concurrency')}' is ${concurrency}. Set '${r.shown('concurrency')}: 1' or turn '${r.shown('iterateWithPreviousOutput')}' off.`,
    );
  }
  if (iterateWithPreviousOutput && iterateOn === undefined) {
    r.fail(
      'iterateWithPreviousOutput',
      `'${r.shown('iterateWithPreviousOutput')}' needs '${r.shown('iterateOn')}': name the input field that holds the items, e.g. '${r.shown('iterateOn')}: sections'.`,
    );
  }
  const includeAllStepsOutput = r.boolean('includeAllStepsOutput');
  const outputKey = r.word('outputKey', 'team_output');
  const inputSchema = await readSchema(compiler, r, 'inputSchema');
  const outputSchema = await readSchema(compiler, r, 'outputSchema');

  const skills: AgentPlan[] = [];
  for (const item of skillItems) skills.push(await compiler.agentEntry(item, scope));

  const reflection = r.map('reflection', '{ reviewer: ./reviewer.yaml, is_approved: approved }');
  let review:
    | {
        reviewer: AgentPlan;
        isApproved: string;
        maxIterations?: number | undefined;
        returnLastOnMaxIterations?: boolean | undefined;
        customErrorMessage?: string | undefined;
      }
    | undefined;
  if (reflection) {
    reflection.checkKeys(REFLECTION_KEYS, 'a team reflection');
    const reviewerNode = reflection.require('reviewer', 'the agent that reviews the team output', './reviewer.yaml');
    const isApproved =
      reflection.word('isApproved', 'approved') ??
      reflection.fail(
        'isApproved',
        `'${reflection.shown('isApproved')}' is required: the field of the reviewer's output that is true when it approves, e.g. '${reflection.shown('isApproved')}: approved'.`,
      );
    review = {
      isApproved,
      maxIterations: reflection.integer('maxIterations', 1, 3),
      returnLastOnMaxIterations: reflection.boolean('returnLastOnMaxIterations'),
      customErrorMessage: reflection.string('customErrorMessage', 'The reviewer did not approve.'),
      reviewer: await compiler.agentEntry({ node: reviewerNode, at: reflection.at('reviewer') }, scope),
    };
  }
  return {
    at: common.at,
    name: common.name,
    children: review ? [...skills, review.reviewer] : skills,
    toolAgents: [],
    create: (build) =>
      new TeamAgent({
        name: common.name,
        description: common.description,
        skills: skills.map(build),
        mode,
        inputSchema,
        outputSchema,
        outputKey,
        iterateOn,
        concurrency,
        iterateWithPreviousOutput,
        includeAllStepsOutput,
        reflection: review && { ...review, reviewer: build(review.reviewer) },
      }),
  };
}
