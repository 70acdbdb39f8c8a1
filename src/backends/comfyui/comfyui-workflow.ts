import { readFileSync } from 'node:fs';

/**
 * The values a workflow file can ask for. A JSON string that is exactly `"{{name}}"` becomes the
 * typed value (a number stays a number, so `"seed": "{{seed}}"` is a valid KSampler input); a
 * placeholder inside a longer string is replaced by its text (`"a photo of {{prompt}}"`).
 *
 * - prompt: the request's prompt ("" for a video request with images only)
 * - width, height: pixels (video: the size, or short side 1080 following the first image)
 * - seed: a fresh random integer for every request
 * - steps: sampler steps for the quality (`hd` and video `quality`: 50; `standard`, `speed`: 25)
 * - quality: the request's quality word (`hd`, `standard`, `speed`, `quality`)
 * - fps, duration (seconds), frames (fps x duration), with_audio (boolean): video only
 * - image, last_image: the uploaded input images' names, for LoadImage nodes (video only)
 */
const workflowPlaceholders = [
  'prompt',
  'width',
  'height',
  'seed',
  'steps',
  'quality',
  'fps',
  'duration',
  'frames',
  'with_audio',
  'image',
  'last_image',
] as const;

export type WorkflowPlaceholder = (typeof workflowPlaceholders)[number];

export type WorkflowValues = Partial<Record<WorkflowPlaceholder, string | number | boolean>>;

const placeholderPattern = /\{\{\s*([A-Za-z_]+)\s*\}\}/g;
const wholePlaceholder = /^\{\{\s*([A-Za-z_]+)\s*\}\}$/;

/** A ComfyUI workflow in API format ("Save (API Format)"): node id → {class_type, inputs}. */
export class ComfyWorkflow {
  readonly path: string;
  readonly #nodes: Readonly<Record<string, unknown>>;
  readonly #used: ReadonlySet<WorkflowPlaceholder>;

  private constructor(path: string, nodes: Readonly<Record<string, unknown>>, used: ReadonlySet<WorkflowPlaceholder>) {
    this.path = path;
    this.#nodes = nodes;
    this.#used = used;
  }

  /** Reads and checks a workflow file; every problem is an Error whose message says what to fix. */
  static load(path: string): ComfyWorkflow {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`the workflow file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new Error(`the workflow file ${path} is not JSON: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`the workflow file ${path} is not a JSON object`);
    const nodes = parsed as Record<string, unknown>;
    if (Array.isArray(nodes['nodes']) && 'links' in nodes) {
      throw new Error(`the workflow file ${path} is in ComfyUI's UI format; export it with "Save (API Format)" (enable dev mode options)`);
    }
    for (const [id, node] of Object.entries(nodes)) {
      if (typeof (node as { class_type?: unknown } | null)?.class_type !== 'string') {
        throw new Error(`the workflow file ${path} is not in ComfyUI's API format: node '${id}' has no class_type`);
      }
    }
    const used = new Set<WorkflowPlaceholder>();
    collectPlaceholders(nodes, path, used);
    if (!used.has('prompt')) throw new Error(`the workflow file ${path} has no "{{prompt}}" placeholder for the prompt text`);
    return new ComfyWorkflow(path, nodes, used);
  }

  uses(name: WorkflowPlaceholder): boolean {
    return this.#used.has(name);
  }

  /** A copy of the workflow with every placeholder replaced; each used placeholder must have a value. */
  fill(values: WorkflowValues): Record<string, unknown> {
    for (const name of this.#used) {
      if (values[name] === undefined) throw new Error(`no value for the placeholder {{${name}}}`);
    }
    return replaceIn(this.#nodes, values) as Record<string, unknown>;
  }
}

function collectPlaceholders(value: unknown, path: string, used: Set<WorkflowPlaceholder>): void {
  if (typeof value === 'string') {
    for (const match of value.matchAll(placeholderPattern)) {
      const name = match[1] ?? '';
      if (!isPlaceholder(name)) {
        throw new Error(`the workflow file ${path} uses the unknown placeholder {{${name}}}; known: ${workflowPlaceholders.join(', ')}`);
      }
      used.add(name);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) collectPlaceholders(item, path, used);
  } else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) collectPlaceholders(item, path, used);
  }
}

function replaceIn(value: unknown, values: WorkflowValues): unknown {
  if (typeof value === 'string') {
    const whole = wholePlaceholder.exec(value);
    if (whole !== null) return values[whole[1] as WorkflowPlaceholder];
    return value.replace(placeholderPattern, (_text, name: string) => String(values[name as WorkflowPlaceholder]));
  }
  if (Array.isArray(value)) return value.map((item) => replaceIn(item, values));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceIn(item, values)]));
  }
  return value;
}

function isPlaceholder(name: string): name is WorkflowPlaceholder {
  return (workflowPlaceholders as readonly string[]).includes(name);
}
