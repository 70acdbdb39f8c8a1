import { encodeConstant, encodeNode, floatAttribute, integerAttribute, integersAttribute, OnnxGraph, type GraphNode } from './onnx-graph.ts';

/** What was rewritten, by kind. */
export interface GraphSimplification {
  readonly model: Uint8Array;
  readonly hardSwishes: number;
  readonly foldedAffines: number;
  /** Affines that could not be folded, now per-channel 1×1 convolutions. */
  readonly channelAffines: number;
}

/**
 * Rewrites of Paddle2ONNX exports of PP-LCNetV3 networks (PP-OCRv4 detection and recognition)
 * that give the same outputs with fewer passes over memory. The export spells each hard-swish as
 * four element-wise nodes (x · clip(x + 3, 0, 6) / 6) and follows convolutions and activations
 * with a learnable scalar affine (a · x + b, two more nodes); onnxruntime fuses neither, and
 * these element-wise nodes took half of the recogniser's time on a CPU. Here a hard-swish becomes
 * HardSigmoid + Mul (HardSwish itself needs opset 14; these models are opset 9 and 11), and an
 * affine is folded into the weights of the convolution before it, or of a 1×1 convolution after
 * it (exact: no padding is involved). An affine before a padded (depthwise) convolution cannot be
 * folded exactly; it becomes a 1×1 depthwise convolution instead, which onnxruntime keeps in its
 * blocked channel layout: the scalar Mul and Add made it convert the tensor out of that layout
 * and back around them, four passes over memory where one is left (recognition ~25% faster).
 * Anything that does not match exactly is left as it was.
 */
export function simplifyPaddleGraph(model: Uint8Array): GraphSimplification {
  const graph = new OnnxGraph(model);
  let hardSwishes = 0;
  let foldedAffines = 0;
  let channelAffines = 0;
  for (const node of [...graph.nodes]) {
    if (node.removed) continue;
    if (node.opType === 'Div' && rewriteHardSwish(graph, node)) hardSwishes++;
  }
  for (const node of [...graph.nodes]) {
    if (node.removed || node.opType !== 'Conv') continue;
    if (foldAffineAfterConvolution(graph, node)) foldedAffines++;
    if (foldAffineBeforePointwiseConvolution(graph, node)) foldedAffines++;
  }
  for (const node of [...graph.nodes]) {
    if (!node.removed && node.opType === 'Mul' && affineAsChannelConvolution(graph, node)) channelAffines++;
  }
  if (hardSwishes + foldedAffines + channelAffines === 0) return { model, hardSwishes, foldedAffines, channelAffines };
  // Constants the rewrites left unread (3, 6, the affine scalars): onnxruntime warns about each.
  const read = new Set(graph.nodes.filter((node) => !node.removed).flatMap((node) => node.inputs));
  for (const node of graph.nodes) {
    if (node.opType === 'Constant' && !node.removed && node.outputs.every((output) => !read.has(output) && !graph.outputs.has(output))) {
      remove(node);
    }
  }
  return { model: graph.toBytes(), hardSwishes, foldedAffines, channelAffines };
}

function remove(...nodes: GraphNode[]): void {
  for (const node of nodes) {
    node.removed = true;
    node.changed = true;
  }
}

/** Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6) → Mul(x, HardSigmoid(x, 1/6, 1/2)). */
function rewriteHardSwish(graph: OnnxGraph, divide: GraphNode): boolean {
  if (graph.scalar(divide.inputs[1]) !== 6) return false;
  const multiply = graph.producer(divide.inputs[0]);
  if (multiply?.opType !== 'Mul' || graph.soleConsumer(multiply.outputs[0]) !== divide) return false;
  const clipSide = multiply.inputs.findIndex((input) => graph.producer(input)?.opType === 'Clip');
  const clip = graph.producer(multiply.inputs[clipSide]);
  const input = multiply.inputs[1 - clipSide];
  if (clip === undefined || input === undefined || graph.soleConsumer(clip.outputs[0]) !== multiply) return false;
  // Opset 9 gives Clip's bounds as attributes, opset 11 as inputs.
  const minimum = clip.inputs.length === 1 ? graph.floatAttribute(clip, 'min') : graph.scalar(clip.inputs[1]);
  const maximum = clip.inputs.length === 1 ? graph.floatAttribute(clip, 'max') : graph.scalar(clip.inputs[2]);
  if (minimum !== 0 || maximum !== 6) return false;
  const add = graph.producer(clip.inputs[0]);
  if (add?.opType !== 'Add' || graph.soleConsumer(add.outputs[0]) !== clip) return false;
  if (add.inputs[0] !== input || graph.scalar(add.inputs[1]) !== 3) return false;
  const gate = clip.outputs[0] ?? '';
  remove(add, divide);
  replace(graph, clip, 'HardSigmoid', [input], [gate], [floatAttribute('alpha', 1 / 6), floatAttribute('beta', 0.5)]);
  replace(graph, multiply, 'Mul', [input, gate], [...divide.outputs]);
  return true;
}

function replace(graph: OnnxGraph, node: GraphNode, opType: string, inputs: string[], outputs: string[], attributes: Uint8Array[] = []): void {
  node.opType = opType;
  node.inputs = inputs;
  graph.setOutputs(node, outputs);
  node.replacement = encodeNode(opType, inputs, outputs, attributes);
}

interface ScalarAffine {
  readonly multiply: GraphNode;
  readonly add: GraphNode;
  readonly scale: number;
  readonly shift: number;
  readonly input: string;
}

/** Add(Mul(x, a), b) with one-element constants a and b, starting at the Mul. */
function scalarAffine(graph: OnnxGraph, multiply: GraphNode | undefined): ScalarAffine | null {
  if (multiply?.opType !== 'Mul' || multiply.removed) return null;
  const scaleSide = multiply.inputs.findIndex((input) => graph.scalar(input) !== undefined);
  const input = multiply.inputs[1 - scaleSide];
  const scale = graph.scalar(multiply.inputs[scaleSide]);
  const add = graph.soleConsumer(multiply.outputs[0]);
  if (scale === undefined || input === undefined || add?.opType !== 'Add') return null;
  const shiftSide = add.inputs.findIndex((value) => value !== multiply.outputs[0]);
  const shift = graph.scalar(add.inputs[shiftSide]);
  return shift === undefined ? null : { multiply, add, scale, shift, input };
}

/** The weight and bias constants of a convolution, when only it uses them. */
function convolutionParameters(graph: OnnxGraph, convolution: GraphNode) {
  const [, weightName, biasName] = convolution.inputs;
  const weight = graph.floatConstant(weightName);
  const bias = graph.floatConstant(biasName);
  if (weight === null || bias === null || weightName === undefined || biasName === undefined) return null;
  if (graph.consumers(weightName).length !== 1 || graph.consumers(biasName).length !== 1) return null;
  const outputs = weight.dimensions[0] ?? 0;
  if (outputs === 0 || bias.values.length !== outputs || weight.values.length % outputs !== 0) return null;
  return { weight, bias, perOutput: weight.values.length / outputs };
}

/** a · conv(x; W, c) + b = conv(x; a·W, a·c + b). */
function foldAffineAfterConvolution(graph: OnnxGraph, convolution: GraphNode): boolean {
  const parameters = convolutionParameters(graph, convolution);
  const affine = scalarAffine(graph, graph.soleConsumer(convolution.outputs[0]));
  if (parameters === null || affine === null || convolution.outputs.length !== 1) return false;
  const { weight, bias } = parameters;
  for (let index = 0; index < weight.values.length; index++) weight.values[index] = (weight.values[index] ?? 0) * affine.scale;
  for (let index = 0; index < bias.values.length; index++) {
    bias.values[index] = (bias.values[index] ?? 0) * affine.scale + affine.shift;
  }
  graph.markChanged(weight);
  graph.markChanged(bias);
  remove(affine.multiply, affine.add);
  graph.setOutputs(convolution, affine.add.outputs);
  return true;
}

/** conv₁ₓ₁(a · x + b; W, c) = conv₁ₓ₁(x; a·W, c + b·ΣW) — exact because a 1×1 kernel reads no padding. */
function foldAffineBeforePointwiseConvolution(graph: OnnxGraph, convolution: GraphNode): boolean {
  const kernel = graph.integersAttribute(convolution, 'kernel_shape');
  const pads = graph.integersAttribute(convolution, 'pads') ?? [];
  if (kernel === undefined || kernel.some((side) => side !== 1) || pads.some((pad) => pad !== 0)) return false;
  const parameters = convolutionParameters(graph, convolution);
  const source = graph.producer(convolution.inputs[0]);
  if (parameters === null || source?.opType !== 'Add' || graph.soleConsumer(source.outputs[0]) !== convolution) return false;
  const affine = scalarAffine(
    graph,
    source.inputs.map((input) => graph.producer(input)).find((node) => node?.opType === 'Mul'),
  );
  if (affine === null || affine.add !== source) return false;
  const { weight, bias, perOutput } = parameters;
  for (let output = 0; output < bias.values.length; output++) {
    let sum = 0;
    for (let index = output * perOutput; index < (output + 1) * perOutput; index++) {
      sum += weight.values[index] ?? 0;
      weight.values[index] = (weight.values[index] ?? 0) * affine.scale;
    }
    bias.values[output] = (bias.values[output] ?? 0) + affine.shift * sum;
  }
  graph.markChanged(weight);
  graph.markChanged(bias);
  convolution.inputs = [affine.input, ...convolution.inputs.slice(1)];
  convolution.changed = true;
  remove(affine.multiply, affine.add);
  return true;
}

/**
 * Channels of a value computed by a convolution, possibly through a hard-swish (Mul(x,
 * HardSigmoid(x))) or a HardSigmoid; undefined for anything else.
 */
function channelCount(graph: OnnxGraph, value: string | undefined): number | undefined {
  const node = graph.producer(value);
  if (node?.opType === 'Conv') return graph.floatConstant(node.inputs[1])?.dimensions[0];
  if (node?.opType === 'HardSigmoid') return channelCount(graph, node.inputs[0]);
  if (node?.opType !== 'Mul' || node.inputs.length !== 2) return undefined;
  const [left, right] = node.inputs;
  const gate = [left, right].findIndex((input) => graph.producer(input)?.opType === 'HardSigmoid');
  const [input, other] = gate === 0 ? [right, left] : [left, right];
  return gate >= 0 && graph.producer(other)?.inputs[0] === input ? channelCount(graph, input) : undefined;
}

/** Add(Mul(x, a), b) → Conv(x; W = a per channel, bias b, group = channels, 1×1 kernel). */
function affineAsChannelConvolution(graph: OnnxGraph, multiply: GraphNode): boolean {
  const affine = scalarAffine(graph, multiply);
  const channels = affine === null ? undefined : channelCount(graph, affine.input);
  if (affine === null || channels === undefined || channels === 0) return false;
  const output = affine.add.outputs[0] ?? '';
  const weight = `${output}.channel_scale`;
  const bias = `${output}.channel_shift`;
  affine.add.before.push(
    encodeConstant(weight, [channels, 1, 1, 1], new Float32Array(channels).fill(affine.scale)),
    encodeConstant(bias, [channels], new Float32Array(channels).fill(affine.shift)),
  );
  remove(affine.multiply);
  replace(
    graph,
    affine.add,
    'Conv',
    [affine.input, weight, bias],
    [...affine.add.outputs],
    [integerAttribute('group', channels), integersAttribute('kernel_shape', [1, 1])],
  );
  return true;
}
