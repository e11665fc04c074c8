// The agent tree of plan-execute-process.test.ts, built the same way in the test and in its worker.
import { z } from 'zod';
import { FunctionTool, LlmAgent, type BaseLlm } from '@troupe/core';
import { PlanExecuteAgent, planSchema } from '@troupe/core/patterns';

/** A trip whose executor books a hotel only after a person approves (`requireConfirmation`). */
export function bookingTrip(planner: BaseLlm, executor: BaseLlm): PlanExecuteAgent {
  const bookHotel = new FunctionTool({
    name: 'book_hotel',
    description: 'Books a hotel room.',
    parameters: z.object({ hotel: z.string() }),
    requireConfirmation: true,
    execute: ({ hotel }) => ({ booked: hotel, pid: process.pid }),
  });
  return new PlanExecuteAgent({
    name: 'Trip',
    planner: new LlmAgent({
      name: 'Planner',
      model: planner,
      instruction: 'Break the request into steps.',
      outputSchema: planSchema,
    }),
    executor: new LlmAgent({
      name: 'Executor',
      model: executor,
      instruction: 'Do the latest step.',
      tools: [bookHotel],
    }),
  });
}
