import { existsSync } from 'node:fs';
import {
  getLlama,
  JinjaTemplateChatWrapper,
  LlamaLogLevel,
  resolveChatWrapper,
  type ChatWrapper,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaModel,
  type Token,
} from 'node-llama-cpp';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { OutputGrammars } from './output-grammars.ts';
import type { LlamaSettings } from './llama-settings.ts';
import { SequencePool } from './sequence-pool.ts';
import { TemplateGenerationPrompt } from './template-generation-prompt.ts';

/** Without `contextSize`, node-llama-cpp picks what memory allows up to the trained size, capped here. */
const defaultMaxContextSize = 8192;

/** A model loaded and ready: one context whose sequences serve one request each. */
export interface LoadedModel {
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  readonly chatWrapper: ChatWrapper;
  /** `<think>` and `</think>` where they are special tokens: generated, they come out as text to split reasoning by. */
  readonly thinkTagTokens: ReadonlySet<Token>;
  /** The template's generation prompt per thinking switch, when the wrapper renders the GGUF's Jinja template. */
  readonly generationPrompt: TemplateGenerationPrompt | undefined;
  readonly sequences: SequencePool<LlamaContextSequence>;
  readonly grammars: OutputGrammars;
  /** Tokens one sequence holds: a prompt and its answer must fit in it. */
  readonly contextSize: number;
}

/**
 * Loads the GGUF on first use, once: concurrent first requests wait for the same load, and a
 * failed load is tried again by the next request (the file may have been fixed meanwhile).
 */
export class LlamaEngine {
  readonly settings: LlamaSettings;
  #loading: Promise<LoadedModel> | undefined;

  constructor(settings: LlamaSettings) {
    this.settings = settings;
  }

  load(): Promise<LoadedModel> {
    if (this.#loading === undefined) {
      const loading = this.#load();
      loading.catch(() => {
        if (this.#loading === loading) this.#loading = undefined;
      });
      this.#loading = loading;
    }
    return this.#loading;
  }

  async close(): Promise<void> {
    const loading = this.#loading;
    this.#loading = undefined;
    const loaded = await loading?.catch(() => undefined);
    if (loaded === undefined) return;
    await loaded.context.dispose();
    await loaded.model.dispose();
  }

  async #load(): Promise<LoadedModel> {
    const { modelName, modelPath, gpuLayers, parallelSequences } = this.settings;
    const offline = (why: string): EngineFailure =>
      new EngineFailure('misconfigured', modelName, `Model '${modelName}' is offline: its GGUF file '${modelPath}' ${why}.`);
    const notReady = this.settings.hubFile?.files.notReadyReason(this.settings.hubFile.uri);
    if (notReady !== undefined) throw new EngineFailure('misconfigured', modelName, `Model '${modelName}' is not ready: the platform ${notReady}.`);
    if (!existsSync(modelPath)) throw offline('does not exist');
    let llama: Llama;
    try {
      llama = await runtime(gpuLayers === 0 ? 'cpu' : 'auto');
    } catch (error) {
      throw offline(`cannot be run: the llama.cpp binary for this machine did not load (${(error as Error).message})`);
    }
    if (gpuLayers !== 'auto' && gpuLayers > 0 && llama.gpu === false) {
      throw offline(
        `asks for gpuLayers: ${gpuLayers}, but node-llama-cpp found no CUDA or Vulkan GPU it can run on here (no GPU, no driver, or its GPU binaries are missing from node_modules); set gpuLayers: auto to use a GPU only where there is one, or 0 for the CPU`,
      );
    }
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath, gpuLayers: llama.gpu === false ? 0 : gpuLayers });
    } catch (error) {
      throw offline(`could not be loaded (${(error as Error).message})`);
    }
    try {
      const context = await model.createContext({
        contextSize: this.settings.contextSize ?? { max: defaultMaxContextSize },
        sequences: parallelSequences,
        threads: this.settings.threads,
      });
      const sequences = Array.from({ length: parallelSequences }, () => context.getSequence());
      const { device, where } = await deviceOf(llama, model, context);
      this.settings.announce({ model: modelName, device }, `model ${modelName} loaded on ${where}`);
      const chatWrapper = resolveChatWrapper(model);
      return {
        model,
        context,
        chatWrapper,
        // Built-in wrappers render their own format; only the GGUF's template, rendered as Jinja, has the template's switch.
        thinkTagTokens: specialTokensOf(model, ['<think>', '</think>']),
        generationPrompt: chatWrapper instanceof JinjaTemplateChatWrapper ? TemplateGenerationPrompt.from(chatWrapper.template) : undefined,
        sequences: new SequencePool(sequences),
        grammars: new OutputGrammars(llama),
        contextSize: context.contextSize,
      };
    } catch (error) {
      await model.dispose();
      throw offline(`has no room for a context of the configured size (${(error as Error).message})`);
    }
  }
}

/** One llama.cpp runtime per process and kind: each getLlama() loads the native binding anew (~0.8 s). */
const runtimes = new Map<'cpu' | 'auto', Promise<Llama>>();

function runtime(kind: 'cpu' | 'auto'): Promise<Llama> {
  let llama = runtimes.get(kind);
  if (llama === undefined) {
    // build 'never': only the prebuilt binaries from npm are used; nothing is downloaded or compiled at run time.
    // gpu 'auto': node-llama-cpp tries CUDA, then Vulkan, each only where its driver and binary load, then the CPU.
    llama = getLlama({ gpu: kind === 'cpu' ? false : 'auto', build: 'never', logLevel: LlamaLogLevel.warn, progressLogs: false });
    llama.catch(() => runtimes.delete(kind));
    runtimes.set(kind, llama);
  }
  return llama;
}

/** Which device runs the model, for the load's log line. */
async function deviceOf(llama: Llama, model: LlamaModel, context: LlamaContext): Promise<{ device: string; where: string }> {
  const cpu = `the CPU (${context.currentThreads} threads)`;
  if (llama.gpu === false) return { device: 'cpu', where: cpu };
  const gpus = (await llama.getGpuDeviceNames()).join(', ') || llama.gpu;
  if (model.gpuLayers === 0) return { device: 'cpu', where: `${cpu}: ${gpus} (${llama.gpu}) has no room for any of its layers` };
  return { device: llama.gpu, where: `${gpus} (${llama.gpu}, ${model.gpuLayers} of ${model.fileInsights.totalLayers} layers offloaded)` };
}

/** The ids of the texts that are one special token of the model's vocabulary (as text they tokenize otherwise). */
function specialTokensOf(model: LlamaModel, texts: readonly string[]): ReadonlySet<Token> {
  const tokens = new Set<Token>();
  for (const text of texts) {
    const special = model.tokenize(text, true);
    const [token] = special;
    if (special.length === 1 && token !== undefined && model.tokenize(text, false).join(',') !== String(token)) tokens.add(token);
  }
  return tokens;
}
