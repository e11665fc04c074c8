/**
 * Agent as a tool (AgentTool) with a custom agent.
 *
 * ImageGen is a custom, non-LLM agent: it takes an `image_prompt` (from its input, or from
 * state.image_prompt when run on its own), "generates" an image (a 1x1 PNG here; a real one would
 * call an image model), yields it as inlineData, records the prompt in state via
 * `actions.stateDelta`, and returns `{ status, mime_type, image_base64 }` as its output.
 * Artist wraps it in an AgentTool: its model calls `ImageGen({ image_prompt })` like any function,
 * and gets ImageGen's output back as the function response. State written inside ImageGen flows
 * back to the session, so Artist's instruction can read `{last_image_prompt?}` afterwards.
 *
 * Try: npx troupe run examples/artist --input "Paint an image of a cat wearing a hat"
 */
import { z } from 'zod';
import { AgentTool, BaseAgent, LlmAgent, createEvent, type Event, type InvocationContext } from '@troupe/core';

/** A 1x1 PNG, base64-encoded: the "generated" image. */
export const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Generates an image from a prompt (without a model: it always paints the same pixel). */
export class ImageGeneratorAgent extends BaseAgent {
  /** AgentTool turns this into the tool's parameters, and validates the model's arguments with it. */
  override readonly inputSchema = z.object({
    image_prompt: z.string().describe('A detailed description of the image to generate.'),
  });

  constructor(name = 'ImageGen') {
    super({ name, description: 'Generates an image from a prompt.' });
  }

  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const fromInput = ctx.input.image_prompt;
    const fromState = ctx.session.state.image_prompt;
    const prompt =
      typeof fromInput === 'string' ? fromInput : typeof fromState === 'string' ? fromState : 'default prompt';
    // ... a real agent would call an image model with `prompt` here ...
    yield createEvent({
      content: {
        role: 'model',
        parts: [
          { text: `Generated an image for: ${prompt}` },
          { inlineData: { mimeType: 'image/png', data: TINY_PNG } },
        ],
      },
      output: { status: 'success', mime_type: 'image/png', image_base64: TINY_PNG },
      actions: { stateDelta: { last_image_prompt: prompt } },
    });
  }
}

export const imageGen = new ImageGeneratorAgent();

export const rootAgent = new LlmAgent({
  name: 'Artist',
  description: 'An agent that can create images using a generation tool.',
  instruction:
    "You are an artist. Write a detailed prompt for the image the user wants, then call the 'ImageGen' tool with it as image_prompt. " +
    "The tool returns 'status', 'mime_type' and 'image_base64'. Once the image is made, describe it to the user in one sentence.\n" +
    'Your last image prompt, if any: {last_image_prompt?}',
  tools: [new AgentTool({ agent: imageGen })],
});
