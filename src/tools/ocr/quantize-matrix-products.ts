import { encodeConstant, encodeNode, type GraphNode, type OnnxGraph } from './onnx-graph.ts';
import { quantizeWeightsPerChannel } from './weight-quantization.ts';

/** onnxruntime's own operators (DynamicQuantizeMatMul), beside ONNX's. */
const runtimeDomain = 'com.microsoft';

/**
 * Runs each product of a value by a constant matrix (MatMul with a 2-D float weight) in 8 bits
 * with onnxruntime's DynamicQuantizeMatMul: the weights are quantised to signed integers per
 * column (at most `weightLimit` in magnitude), the value to unsigned ones over its own range at
 * each inference (no calibration), and the product comes back in floats. A bias added right after
 * (Add of a constant vector, the product's only reader) goes into the same node. In the
 * recogniser these are the attention block's projections and the 6,625-class output layer, which
 * alone took a twentieth of its time in floats. Returns how many products were rewritten.
 */
export function quantizeMatrixProducts(graph: OnnxGraph, weightLimit: number): number {
  let count = 0;
  for (const product of graph.nodes) {
    if (product.removed || product.opType !== 'MatMul' || !quantize(graph, product, weightLimit)) continue;
    count++;
  }
  if (count > 0) graph.importOpset(runtimeDomain, 1);
  return count;
}

function quantize(graph: OnnxGraph, product: GraphNode, weightLimit: number): boolean {
  const [input, weightName] = product.inputs;
  const weight = graph.floatConstant(weightName);
  if (input === undefined || weight === null || weight.dimensions.length !== 2) return false;
  const [rows = 0, columns = 0] = weight.dimensions;
  const { weights, scales } = quantizeWeightsPerChannel(weight.values, columns, rows, (column, row) => row * columns + column, weightLimit);
  const bias = addedBias(graph, product, columns);
  const output = bias?.add.outputs[0] ?? product.outputs[0] ?? '';
  const name = (part: string) => `${output}/quantized/${part}`;
  const inputs = [input, name('weight'), name('weight_scale'), name('weight_zero')];
  product.before.push(
    encodeConstant(name('weight'), [rows, columns], weights),
    encodeConstant(name('weight_scale'), [columns], scales),
    encodeConstant(name('weight_zero'), [columns], new Int8Array(columns)),
  );
  if (bias !== null) {
    product.before.push(encodeConstant(name('bias'), [columns], bias.values));
    inputs.push(name('bias'));
    remove(bias.add);
  }
  product.replacement = encodeNode('DynamicQuantizeMatMul', inputs, [output], [], runtimeDomain);
  product.changed = true;
  // The float weights (and bias) are read by nothing now (onnxruntime warns about each).
  for (const constant of [weight.node, bias?.node]) {
    if (constant !== undefined && graph.consumers(constant.outputs[0] ?? '').every((reader) => reader === product || reader === bias?.add)) remove(constant);
  }
  return true;
}

/** The Add of a constant vector of `columns` floats that alone reads the product, if any. */
function addedBias(graph: OnnxGraph, product: GraphNode, columns: number): { add: GraphNode; node: GraphNode; values: Float32Array } | null {
  const add = graph.soleConsumer(product.outputs[0]);
  if (add?.opType !== 'Add') return null;
  const constant = graph.floatConstant(add.inputs.find((input) => input !== product.outputs[0]));
  if (constant === null || constant.dimensions.length !== 1 || constant.values.length !== columns) return null;
  return { add, node: constant.node, values: constant.values };
}

function remove(node: GraphNode): void {
  node.removed = true;
  node.changed = true;
}
