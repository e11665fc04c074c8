/**
 * Parallel fan-out / gather pattern.
 *
 * A ParallelAgent runs independent fetchers at the same time (fan-out), each on its own branch
 * (`ConcurrentFetch.API1Fetcher`, ...) so they never see each other's conversation, while all of
 * them write to the shared session state under different keys. The SequentialAgent then runs the
 * Synthesizer, which reads both keys from state and also sees what every branch said (gather).
 *
 * The file also defines the InfoGatherer concept (WeatherFetcher and NewsFetcher in parallel) as a
 * second, separate agent tree, exported as `infoGatherer`.
 *
 * Try: npx troupe run examples/fan-out --input "Plan a weekend in Lisbon"
 */
import { LlmAgent, ParallelAgent, SequentialAgent } from '@troupe/core';

export const api1Fetcher = new LlmAgent({
  name: 'API1Fetcher',
  description: 'Fetches data from API 1.',
  instruction: "Fetch data from API 1 for the user's request. Reply with the data only.",
  outputKey: 'api1_data',
});

export const api2Fetcher = new LlmAgent({
  name: 'API2Fetcher',
  description: 'Fetches data from API 2.',
  instruction: "Fetch data from API 2 for the user's request. Reply with the data only.",
  outputKey: 'api2_data',
});

export const concurrentFetch = new ParallelAgent({ name: 'ConcurrentFetch', subAgents: [api1Fetcher, api2Fetcher] });

export const synthesizer = new LlmAgent({
  name: 'Synthesizer',
  description: 'Combines the fetched data into one answer.',
  instruction:
    'Combine the results from API 1 ({api1_data}) and API 2 ({api2_data}) into one short answer for the user.',
});

export const rootAgent = new SequentialAgent({
  name: 'FetchAndSynthesize',
  description: 'Fetches from two APIs at once, then combines the results.',
  subAgents: [concurrentFetch, synthesizer],
});

// The InfoGatherer concept: two fetchers in parallel; later agents read state.weather and state.news.
export const weatherFetcher = new LlmAgent({
  name: 'WeatherFetcher',
  description: 'Reports the weather.',
  instruction: 'Report the current weather for the place the user mentions, in one sentence.',
  outputKey: 'weather',
});

export const newsFetcher = new LlmAgent({
  name: 'NewsFetcher',
  description: 'Reports the news.',
  instruction: 'Report the top local news headline for the place the user mentions, in one sentence.',
  outputKey: 'news',
});

export const infoGatherer = new ParallelAgent({ name: 'InfoGatherer', subAgents: [weatherFetcher, newsFetcher] });
