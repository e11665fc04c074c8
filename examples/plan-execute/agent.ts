/**
 * Plan, execute, replan (PlanExecuteAgent from @troupe/core/patterns).
 *
 * `TripPlanner` turns a travel request into a plan (`Planner`, structured output `{ steps }`),
 * performs the first open step with the travel tools (`TripExecutor`), and after each step lets
 * `TripReplanner` either answer the user (`respond`) or revise the steps still to do. The plan and
 * every finished step are in state (`plan`, `pastSteps`); the final event says why it stopped.
 *
 * Try: npx troupe run examples/plan-execute --input "Plan a weekend in Lisbon: flights, a hotel and the weather"
 */
import { z } from 'zod';
import { FunctionTool, LlmAgent } from '@troupe/core';
import { PlanExecuteAgent, planSchema, replanSchema } from '@troupe/core/patterns';

const CITIES = ['Lisbon', 'Porto', 'Paris', 'Rome', 'Berlin'] as const;

/** The city a free-text argument names (models sometimes pass a whole sentence), or the text itself. */
const cityIn = (text: string): string => CITIES.find((c) => text.toLowerCase().includes(c.toLowerCase())) ?? text;

export const searchFlights = new FunctionTool({
  name: 'search_flights',
  description: 'Searches flights to a destination city and returns the cheapest options.',
  parameters: z.object({ destination: z.string().describe('The destination city') }),
  execute: ({ destination }) => {
    const city = cityIn(destination);
    return {
      destination: city,
      flights: [
        { flight: 'TP1350', departs: 'Fri 18:05', price: 129 },
        { flight: 'FR7311', departs: 'Sat 06:40', price: 74 },
      ],
    };
  },
});

export const findHotels = new FunctionTool({
  name: 'find_hotels',
  description: 'Finds hotels in a city with their price per night.',
  parameters: z.object({ city: z.string().describe('The city') }),
  execute: ({ city }) => ({
    city: cityIn(city),
    hotels: [
      { name: 'Casa Alfama', pricePerNight: 110 },
      { name: 'Baixa Rooms', pricePerNight: 85 },
    ],
  }),
});

export const weatherForecast = new FunctionTool({
  name: 'weather_forecast',
  description: 'Gives the weather forecast of a city for the weekend.',
  parameters: z.object({ city: z.string().describe('The city') }),
  execute: ({ city }) => ({ city: cityIn(city), forecast: 'Sunny, 19–23 °C' }),
});

export const planner = new LlmAgent({
  name: 'Planner',
  description: 'Breaks a travel request into steps.',
  instruction:
    'Break the travel request into a short list of concrete steps (at most 4), each something the travel tools can do: search flights, find hotels, check the weather. ' +
    'Answer only with JSON: {"steps": ["..."]}.',
  outputSchema: planSchema,
});

export const executor = new LlmAgent({
  name: 'TripExecutor',
  description: 'Performs one step of the trip plan with the travel tools.',
  instruction:
    'Perform exactly the step you are given (the latest "Step n:" message) with the tools, and report the result briefly.',
  tools: [searchFlights, findHotels, weatherForecast],
});

export const replanner = new LlmAgent({
  name: 'TripReplanner',
  description: 'Answers when the trip is planned, or revises the remaining steps.',
  instruction:
    'You revise a trip plan. The remaining steps are {plan}; the finished steps and their results are {pastSteps}. ' +
    'If the results answer the request, reply {"respond": "<the trip plan for the user>"}; otherwise reply {"steps": [<the steps still to do>]}.',
  outputSchema: replanSchema,
});

export const rootAgent = new PlanExecuteAgent({
  name: 'TripPlanner',
  description: 'Plans trips step by step.',
  planner,
  executor,
  replanner,
  maxIterations: 6,
});
