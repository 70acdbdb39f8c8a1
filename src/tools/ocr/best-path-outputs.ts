import { encodeNode, integerAttribute, integersAttribute, OnnxGraph } from './onnx-graph.ts';

/** The recogniser's outputs added by withBestPathOutputs, [lines × steps] each. */
export const bestClassOutput = 'best_path/class';
export const bestProbabilityOutput = 'best_path/probability';

/**
 * The recogniser with two more outputs beside its [lines × steps × classes] probabilities: each
 * step's most likely class (ArgMax) and that class's probability (ReduceMax), all that greedy CTC
 * decoding reads. Fetching only these spares copying the 6,625 probabilities of every step out
 * of onnxruntime and scanning them in JavaScript.
 */
export function withBestPathOutputs(model: Uint8Array): Uint8Array {
  const graph = new OnnxGraph(model);
  const [probabilities] = graph.outputs;
  if (probabilities === undefined) throw new Error('the text recogniser has no output');
  graph.appendNode(encodeNode('ArgMax', [probabilities], [bestClassOutput], [integerAttribute('axis', 2), integerAttribute('keepdims', 0)]));
  graph.appendNode(encodeNode('ReduceMax', [probabilities], [bestProbabilityOutput], [integersAttribute('axes', [2]), integerAttribute('keepdims', 0)]));
  graph.addOutput(bestClassOutput);
  graph.addOutput(bestProbabilityOutput);
  return graph.toBytes();
}
