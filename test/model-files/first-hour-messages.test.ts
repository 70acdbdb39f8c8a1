import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ComfyWorkflow } from '../../src/backends/comfyui/comfyui-workflow.ts';
import { modelEntrySchema } from '../../src/backends/index.ts';
import { parseConfigText } from '../../src/core/config/load-config.ts';
import { ApiError } from '../../src/core/errors/api-error.ts';
import { publicReason } from '../../src/core/health/public-reason.ts';
import { ModelResolver } from '../../src/core/models/model-resolver.ts';
import { platformModels } from '../../src/core/models/platform-models.ts';
import { zeroConfigModels } from '../../src/core/models/zero-config-models.ts';

const resolver = new ModelResolver({ ...zeroConfigModels });

function refusal(model: string, capability: 'chat' | 'image' | 'video' | 'tokenize'): string {
  try {
    resolver.resolve(model, capability);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, '1221');
    return error.message;
  }
  throw new Error(`${model} resolved`);
}

describe('the first hour: what an unconfigured model says, and the files it names', () => {
  it('an unconfigured chat model names the one alias line that serves it on the default model, and that line works', () => {
    const message = refusal('glm-4.7', 'chat');
    assert.match(message, /models: \{ glm-4\.7: \{ alias: glm-edge-1\.5b-chat \}/);
    const config = parseConfigText('models: { glm-4.7: { alias: glm-edge-1.5b-chat } }', 'config.yaml', {}, modelEntrySchema);
    const aliased = new ModelResolver({ ...zeroConfigModels, ...config.models });
    // The very entry of the default model: one engine serves both names.
    assert.equal(aliased.catalogEntry('glm-4.7', 'chat'), zeroConfigModels['glm-edge-1.5b-chat']);
  });

  it('image and video name a config line and a workflow file the repository ships, which the ComfyUI engine loads', () => {
    for (const [model, capability, file] of [
      ['glm-image', 'image', 'image.json'],
      ['cogvideox-3', 'video', 'video.json'],
    ] as const) {
      const message = refusal(model, capability);
      assert.match(message, new RegExp(`workflow: \\./workflows/${file.replace('.', '\\.')}`));
      assert.match(message, new RegExp(`the repository ships workflows/${file.replace('.', '\\.')}`));
      const workflow = ComfyWorkflow.load(fileURLToPath(new URL(`../../workflows/${file}`, import.meta.url)));
      assert.ok(workflow.path.endsWith(file));
    }
  });

  it("the tokenizer's models are the chat's", () => {
    assert.deepEqual(platformModels.tokenize, platformModels.chat);
    assert.ok(platformModels.chat.includes('glm-edge-1.5b-chat'));
  });

  it('a message to a caller keeps an hf:// file it waits for, and still hides the addresses of services', () => {
    assert.equal(
      publicReason('is downloading hf://THUDM/glm-edge-1.5b-chat-gguf/ggml-model-Q4_K_M.gguf@main (20% of 980 MB) from http://mirror.internal:8080/x'),
      'is downloading hf://THUDM/glm-edge-1.5b-chat-gguf/ggml-model-Q4_K_M.gguf@main (20% of 980 MB) from <url>',
    );
  });
});
