import { quantizeWeightsPerChannel } from './weight-quantization.ts';
import { encodeConstant, encodeNode, type GraphNode, type OnnxGraph } from './onnx-graph.ts';

/** The smallest and largest value a tensor took while the network read the calibration lines. */
export type ValueRange = readonly [number, number];

/** Operators whose meaning changed from opset 9 to 10 in a way the upgrade below does not handle. */
const unsafeAtOpset10 = new Set(['Dropout', 'TopK', 'Upsample']);

/**
 * The ungrouped 1×1 convolutions: the bulk of a PP-LCNet network's arithmetic (its other
 * convolutions are depthwise, which 8-bit kernels do not speed up).
 */
export function pointwiseConvolutions(graph: OnnxGraph): GraphNode[] {
  return graph.nodes.filter((node) => {
    if (node.removed || node.opType !== 'Conv' || (graph.integersAttribute(node, 'group')?.[0] ?? 1) !== 1) return false;
    const weight = graph.floatConstant(node.inputs[1]);
    return weight !== null && weight.dimensions.length === 4 && weight.dimensions[2] === 1 && weight.dimensions[3] === 1;
  });
}

/**
 * Every ungrouped convolution, whatever its kernel: in PP-OCR's detector the 3×3 ones of the
 * feature pyramid cost the most, and 8-bit kernels speed those up too.
 */
export function ungroupedConvolutions(graph: OnnxGraph): GraphNode[] {
  return graph.nodes.filter((node) => {
    if (node.removed || node.opType !== 'Conv' || (graph.integersAttribute(node, 'group')?.[0] ?? 1) !== 1) return false;
    return graph.floatConstant(node.inputs[1])?.dimensions.length === 4;
  });
}

/**
 * Runs each convolution `select` picks whose input and output ranges are known in 8 bits: the
 * input quantised to unsigned 8 bits over its range, the weights to signed ones per output
 * channel (at most `weightLimit` in magnitude), the bias to 32 bits, and the output turned back
 * into floats (QuantizeLinear, QLinearConv, DequantizeLinear; onnxruntime's integer kernels then
 * do the multiplications). The opset is raised to 10, where these operators start; a graph with
 * an operator whose meaning changed there (Slice's bounds, attributes before, inputs after, are
 * rewritten) is left as it was. Returns how many convolutions were rewritten.
 */
export function quantizeConvolutions(
  graph: OnnxGraph,
  select: (graph: OnnxGraph) => GraphNode[],
  ranges: ReadonlyMap<string, ValueRange>,
  weightLimit: 63 | 127,
): number {
  const version = graph.opsetVersion();
  if (version === undefined || version < 9) return 0;
  const live = graph.nodes.filter((node) => !node.removed);
  if (version < 10 && (live.some((node) => unsafeAtOpset10.has(node.opType)) || !upgradeSlices(graph))) return 0;
  let count = 0;
  for (const convolution of select(graph)) {
    const input = ranges.get(convolution.inputs[0] ?? '');
    const output = ranges.get(convolution.outputs[0] ?? '');
    if (input !== undefined && output !== undefined && quantize(graph, convolution, { input, output, weightLimit })) count++;
  }
  if (count > 0 && version < 10) graph.setOpsetVersion(10);
  return count;
}

interface Affine {
  readonly scale: number;
  readonly zero: number;
}

/** Unsigned 8-bit steps over the range widened to hold 0 (which must be exact: padding). */
function activationAffine([low, high]: ValueRange): Affine | null {
  const from = Math.min(low, 0);
  const to = Math.max(high, 0);
  if (!(to > from) || !Number.isFinite(to - from)) return null;
  const scale = (to - from) / 255;
  return { scale, zero: Math.min(255, Math.max(0, Math.round(-from / scale))) };
}

interface QuantizationRanges {
  readonly input: ValueRange;
  readonly output: ValueRange;
  /** The largest weight magnitude in integers (model-quantization.ts says when 63). */
  readonly weightLimit: number;
}

function quantize(graph: OnnxGraph, convolution: GraphNode, { input: inputRange, output: outputRange, weightLimit }: QuantizationRanges): boolean {
  const [input = '', weightName, biasName] = convolution.inputs;
  const output = convolution.outputs[0] ?? '';
  const weight = graph.floatConstant(weightName);
  const bias = biasName === undefined ? null : graph.floatConstant(biasName);
  const inputAffine = activationAffine(inputRange);
  const outputAffine = activationAffine(outputRange);
  if (weight === null || inputAffine === null || outputAffine === null || (biasName !== undefined && bias === null)) return false;
  const channels = weight.dimensions[0] ?? 0;
  const perChannel = weight.values.length / channels;
  const { weights, scales: weightScales } = quantizeWeightsPerChannel(
    weight.values,
    channels,
    perChannel,
    (channel, position) => channel * perChannel + position,
    weightLimit,
  );
  const biases = new Int32Array(channels);
  for (let channel = 0; channel < channels; channel++)
    biases[channel] = Math.round((bias?.values[channel] ?? 0) / (inputAffine.scale * (weightScales[channel] ?? 1)));
  const name = (part: string) => `${output}/quantized/${part}`;
  convolution.before.push(
    encodeConstant(name('input_scale'), [], Float32Array.of(inputAffine.scale)),
    encodeConstant(name('input_zero'), [], Uint8Array.of(inputAffine.zero)),
    encodeConstant(name('weight'), weight.dimensions, weights),
    encodeConstant(name('weight_scale'), [channels], weightScales),
    encodeConstant(name('weight_zero'), [channels], new Int8Array(channels)),
    encodeConstant(name('output_scale'), [], Float32Array.of(outputAffine.scale)),
    encodeConstant(name('output_zero'), [], Uint8Array.of(outputAffine.zero)),
    encodeConstant(name('bias'), [channels], biases),
    encodeNode('QuantizeLinear', [input, name('input_scale'), name('input_zero')], [name('input')]),
    encodeNode(
      'QLinearConv',
      ['input', 'input_scale', 'input_zero', 'weight', 'weight_scale', 'weight_zero', 'output_scale', 'output_zero', 'bias'].map(name),
      [name('output')],
      graph.attributeBytes(convolution),
    ),
  );
  convolution.replacement = encodeNode('DequantizeLinear', [name('output'), name('output_scale'), name('output_zero')], [output]);
  convolution.opType = 'DequantizeLinear';
  convolution.changed = true;
  // The float weights and bias are read by nothing now (onnxruntime warns about each).
  for (const constant of [weight, bias]) {
    if (constant !== null && graph.consumers(constant.node.outputs[0] ?? '').length === 1) {
      constant.node.removed = true;
      constant.node.changed = true;
    }
  }
  convolution.inputs = [input];
  return true;
}

/**
 * Slice as of opset 10: its starts, ends and axes as int64 constant inputs instead of
 * attributes. False (nothing changed) when a bound is not a plain integer, which the reader of
 * attributes cannot tell apart from a negative one.
 */
function upgradeSlices(graph: OnnxGraph): boolean {
  const slices = graph.nodes.filter((node) => !node.removed && node.opType === 'Slice' && node.inputs.length === 1);
  const bounds = slices.map((slice) => ['starts', 'ends', 'axes'].map((name) => graph.integersAttribute(slice, name)));
  if (bounds.some((lists) => lists.some((list) => list?.some((value) => !Number.isSafeInteger(value) || value >= 2 ** 31)))) return false;
  slices.forEach((slice, index) => {
    const output = slice.outputs[0] ?? '';
    const inputs = [slice.inputs[0] ?? ''];
    (bounds[index] ?? []).forEach((list, position) => {
      if (list === undefined) return;
      const constant = `${output}/slice/${['starts', 'ends', 'axes'][position] ?? ''}`;
      slice.before.push(
        encodeConstant(
          constant,
          [list.length],
          BigInt64Array.from(list, (value) => BigInt(value)),
        ),
      );
      inputs.push(constant);
    });
    slice.inputs = inputs;
    slice.replacement = encodeNode('Slice', inputs, slice.outputs);
    slice.changed = true;
  });
  return true;
}
