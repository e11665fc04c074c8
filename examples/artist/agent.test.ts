import { describe, expect, it } from 'vitest';
import { InMemoryRunner, getFunctionResponses, type BaseAgent, type LlmRequest } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { ImageGeneratorAgent, TINY_PNG, rootAgent } from './agent.js';

const PROMPT = 'A watercolor of a grey cat wearing a tall red top hat, soft morning light';
const DESCRIPTION = 'Here is a soft watercolor of a grey cat in a tall red top hat.';

async function start(agent: BaseAgent, model?: ScriptedModel) {
  const runner = new InMemoryRunner({ agent, ...(model ? { defaultModel: model } : {}) });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const load = async () =>
    (await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId: session.id }))!;
  return { runner, sessionId: session.id, load };
}

const lastParts = (request: LlmRequest) => request.contents.at(-1)!.parts;

describe('artist example', () => {
  it("ImageGen's output returns to Artist's model as the function response, and its state write is kept", async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'ImageGen', args: { image_prompt: PROMPT } }] },
      DESCRIPTION,
    ]);
    const { runner, sessionId, load } = await start(rootAgent, model);

    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'Paint a cat wearing a hat' });

    expect(result.status).toBe('completed');
    expect(result.output).toBe(DESCRIPTION);
    // The tool's parameters come from ImageGen's inputSchema.
    const declaration = model.requests[0]!.config.tools!.find((t) => t.name === 'ImageGen')!;
    expect(declaration).toMatchObject({
      description: 'Generates an image from a prompt.',
      parameters: { properties: { image_prompt: { type: 'string' } } },
    });

    // The AgentTool result went back to Artist's model as the function response.
    expect(lastParts(model.requests[1]!)).toEqual([
      {
        functionResponse: expect.objectContaining({
          name: 'ImageGen',
          response: { status: 'success', mime_type: 'image/png', image_base64: TINY_PNG },
        }),
      },
    ]);
    // ImageGen yielded the image itself as inlineData, on its own branch, under Artist.
    const imageEvent = result.events.find((e) => e.author === 'ImageGen')!;
    expect(imageEvent).toMatchObject({ path: 'Artist/ImageGen', branch: 'Artist.ImageGen' });
    const image = imageEvent.content!.parts.find((p) => 'inlineData' in p);
    expect(image).toEqual({ inlineData: { mimeType: 'image/png', data: TINY_PNG } });
    expect(Buffer.from(TINY_PNG, 'base64').subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    // Artist's model saw only the result, not ImageGen's own event with the image part.
    expect(JSON.stringify(model.requests[1]!.contents)).not.toContain('inlineData');

    // The state ImageGen wrote inside the tool call is in the session after the run...
    expect(result.state.last_image_prompt).toBe(PROMPT);
    const session = await load();
    expect(session.state.last_image_prompt).toBe(PROMPT);
    expect(
      session.events.some((e) => e.author === 'ImageGen' && e.actions.stateDelta.last_image_prompt === PROMPT),
    ).toBe(true);
    // ...and was already visible to Artist when its model was called again in the same turn.
    expect(model.requests[0]!.config.systemInstruction).toMatch(/Your last image prompt, if any: $/);
    expect(model.requests[1]!.config.systemInstruction).toContain(`Your last image prompt, if any: ${PROMPT}`);
    model.assertDone();
  });

  it('a call without image_prompt gets an error response naming the field, and the Artist can retry', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'ImageGen', args: { prompt: PROMPT } }] },
      { functionCalls: [{ name: 'ImageGen', args: { image_prompt: PROMPT } }] },
      DESCRIPTION,
    ]);
    const { runner, sessionId } = await start(rootAgent, model);

    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'Paint a cat wearing a hat' });

    expect(result.status).toBe('completed');
    const [rejected, accepted] = result.events.flatMap(getFunctionResponses);
    expect(rejected!.response.error).toMatch(/image_prompt/);
    expect(accepted!.response).toMatchObject({ status: 'success' });
    expect(result.events.filter((e) => e.author === 'ImageGen')).toHaveLength(1);
    expect(result.state.last_image_prompt).toBe(PROMPT);
    model.assertDone();
  });

  it('run on its own, ImageGen reads the prompt from state.image_prompt', async () => {
    const { runner, sessionId } = await start(new ImageGeneratorAgent('StandaloneImageGen'));

    const result = await runner.run({
      userId: 'u',
      sessionId,
      newMessage: 'go',
      stateDelta: { image_prompt: 'A lighthouse at dusk' },
    });

    expect(result.status).toBe('completed');
    expect(result.state.last_image_prompt).toBe('A lighthouse at dusk');
    expect(result.output).toEqual({ status: 'success', mime_type: 'image/png', image_base64: TINY_PNG });
  });
});
