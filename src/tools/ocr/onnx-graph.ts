import { concatBytes, fieldFloat, floatField, fieldText, lengthDelimited, readFields, textField, varintField, type WireField } from './protobuf-wire.ts';

/** ONNX field numbers used here (onnx.proto). */
const modelGraph = 7;
const modelOpset = 8;
const opsetDomain = 1;
const opsetVersion = 2;
const graphNode = 1;
const graphOutput = 12;
const valueName = 1;
const nodeInput = 1;
const nodeOutput = 2;
const nodeOpType = 4;
const nodeAttribute = 5;
const nodeDomain = 7;
const attributeName = 1;
const attributeFloat = 2;
const attributeInteger = 3;
const attributeTensor = 5;
const attributeIntegers = 8;
const attributeType = 20;
const tensorDimensions = 1;
const tensorDataType = 2;
const tensorFloats = 4;
const tensorRawData = 9;
const floatDataType = 1;
/** AttributeProto.AttributeType values. */
const floatAttributeType = 1;
const integerAttributeType = 2;
const tensorAttributeType = 4;
const integersAttributeType = 7;

/** One node of the graph, editable: change inputs/outputs, mark it removed or replace it. */
export interface GraphNode {
  readonly field: WireField;
  opType: string;
  inputs: string[];
  outputs: string[];
  readonly attributes: ReadonlyMap<string, readonly WireField[]>;
  changed: boolean;
  removed: boolean;
  /** Bytes of a NodeProto that takes this node's place. */
  replacement?: Uint8Array;
  /** Bytes of NodeProtos written just before this node (constants it reads). */
  readonly before: Uint8Array[];
}

/** A float constant of the graph (a Constant node's value), editable in place. */
export interface FloatConstant {
  readonly node: GraphNode;
  readonly dimensions: readonly number[];
  readonly values: Float32Array;
  changed: boolean;
}

/** An ONNX model's graph read from its bytes, for local rewrites that are written back by `toBytes`. */
export class OnnxGraph {
  readonly nodes: GraphNode[] = [];
  readonly #bytes: Uint8Array;
  readonly #modelFields: WireField[];
  readonly #graphField: WireField;
  readonly #graphFields: WireField[];
  readonly #producers = new Map<string, GraphNode>();
  readonly #constants = new Map<string, FloatConstant | null>();
  /** Names of the graph's outputs: values the caller reads, which no rewrite may change. */
  readonly outputs = new Set<string>();
  /** Outputs added by `addOutput`, written after the model's own. */
  readonly #addedOutputs: string[] = [];
  /** NodeProtos added by `appendNode`, written after the model's own. */
  readonly #addedNodes: Uint8Array[] = [];
  /** Operator sets (domain → version) added by `importOpset`, written after the model's own. */
  readonly #addedOpsets = new Map<string, number>();
  /** The default domain's opset version `toBytes` writes, when set by `setOpsetVersion`. */
  #opsetVersion: number | undefined;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#modelFields = readFields(bytes);
    const graph = this.#modelFields.find((field) => field.number === modelGraph);
    if (graph === undefined) throw new Error('the ONNX model has no graph');
    this.#graphField = graph;
    this.#graphFields = readFields(bytes, graph.start, graph.end);
    for (const field of this.#graphFields) {
      if (field.number === graphOutput) {
        const name = readFields(bytes, field.start, field.end).find((item) => item.number === valueName);
        if (name !== undefined) this.outputs.add(fieldText(bytes, name));
      }
      if (field.number !== graphNode) continue;
      const nodeFields = readFields(bytes, field.start, field.end);
      const texts = (number: number) => nodeFields.filter((item) => item.number === number).map((item) => fieldText(bytes, item));
      const attributes = new Map<string, WireField[]>();
      for (const attribute of nodeFields.filter((item) => item.number === nodeAttribute)) {
        const attributeFields = readFields(bytes, attribute.start, attribute.end);
        const name = attributeFields.find((item) => item.number === attributeName);
        if (name !== undefined) attributes.set(fieldText(bytes, name), attributeFields);
      }
      const node: GraphNode = {
        field,
        opType: texts(nodeOpType)[0] ?? '',
        inputs: texts(nodeInput),
        outputs: texts(nodeOutput),
        attributes,
        changed: false,
        removed: false,
        before: [],
      };
      this.nodes.push(node);
      for (const output of node.outputs) this.#producers.set(output, node);
    }
  }

  /** The live node that computes the value. */
  producer(name: string | undefined): GraphNode | undefined {
    const node = name === undefined ? undefined : this.#producers.get(name);
    return node?.removed === true ? undefined : node;
  }

  /** Live nodes that read the value. */
  consumers(name: string): GraphNode[] {
    return this.nodes.filter((node) => !node.removed && node.inputs.includes(name));
  }

  /** The single live node that reads the value, if exactly one does and the value is no graph output. */
  soleConsumer(name: string | undefined): GraphNode | undefined {
    if (name === undefined || this.outputs.has(name)) return undefined;
    const consumers = this.consumers(name);
    return consumers.length === 1 && consumers[0]?.inputs.filter((input) => input === name).length === 1 ? consumers[0] : undefined;
  }

  /** A float attribute of a node. */
  floatAttribute(node: GraphNode, name: string): number | undefined {
    const value = node.attributes.get(name)?.find((field) => field.number === attributeFloat);
    return value === undefined ? undefined : fieldFloat(this.#bytes, value);
  }

  /** An integer list attribute (packed or not); undefined when the node lacks it. */
  integersAttribute(node: GraphNode, name: string): number[] | undefined {
    const fields = node.attributes.get(name);
    if (fields === undefined) return undefined;
    const values: number[] = [];
    for (const field of fields) {
      if (field.number !== attributeIntegers && field.number !== attributeInteger) continue;
      if (field.wireType === 0) values.push(field.value);
      else for (const packed of readFields(this.#bytes, field.start, field.end).map((item) => item.value)) values.push(packed);
    }
    return values;
  }

  /** The value of a Constant node's float tensor (null for anything else). */
  floatConstant(name: string | undefined): FloatConstant | null {
    if (name === undefined) return null;
    if (this.#constants.has(name)) return this.#constants.get(name) ?? null;
    const constant = this.#readConstant(name);
    this.#constants.set(name, constant);
    return constant;
  }

  /** The single number of a one-element float constant. */
  scalar(name: string | undefined): number | undefined {
    const constant = this.floatConstant(name);
    return constant !== null && constant.values.length === 1 ? constant.values[0] : undefined;
  }

  /** The bytes of a node's attributes (AttributeProtos), to copy onto a node that replaces it. */
  attributeBytes(node: GraphNode): Uint8Array[] {
    return [...node.attributes.values()].map((fields) => this.#bytes.subarray(fields[0]?.at ?? 0, fields.at(-1)?.end ?? 0));
  }

  /** Adds a node after every other (it may read any value of the graph). */
  appendNode(node: Uint8Array): void {
    this.#addedNodes.push(node);
  }

  /** Makes an inner value a graph output too (untyped: onnxruntime infers its type). */
  addOutput(name: string): void {
    if (this.outputs.has(name)) return;
    this.outputs.add(name);
    this.#addedOutputs.push(name);
  }

  /** The version of the default operator set the model declares. */
  opsetVersion(): number | undefined {
    if (this.#opsetVersion !== undefined) return this.#opsetVersion;
    const opset = this.#modelFields.find((field) => field.number === modelOpset && this.#isDefaultDomain(field));
    return opset === undefined ? undefined : readFields(this.#bytes, opset.start, opset.end).find((item) => item.number === opsetVersion)?.value;
  }

  /** Replaces the version of the default operator set the model declares (written by `toBytes`). */
  setOpsetVersion(version: number): void {
    this.#opsetVersion = version;
  }

  /** Declares an operator set of another domain (e.g. onnxruntime's com.microsoft) unless the model does. */
  importOpset(domain: string, version: number): void {
    const declared = this.#modelFields.some((field) => {
      if (field.number !== modelOpset) return false;
      const name = readFields(this.#bytes, field.start, field.end).find((item) => item.number === opsetDomain);
      return name !== undefined && fieldText(this.#bytes, name) === domain;
    });
    if (!declared) this.#addedOpsets.set(domain, version);
  }

  /** The model's bytes with every change applied. */
  toBytes(): Uint8Array {
    const graphParts = this.#graphFields.map((field) => {
      const node = field.number === graphNode ? this.nodes.find((item) => item.field === field) : undefined;
      if (node === undefined || !node.changed) return this.#bytes.subarray(field.at, field.end);
      const before = node.before.map((bytes) => lengthDelimited(graphNode, bytes));
      if (node.removed) return concatBytes(before);
      return concatBytes([...before, lengthDelimited(graphNode, node.replacement ?? this.#encodeNode(node))]);
    });
    const addedNodes = this.#addedNodes.map((node) => lengthDelimited(graphNode, node));
    const addedOutputs = this.#addedOutputs.map((name) => lengthDelimited(graphOutput, textField(valueName, name)));
    const graph = lengthDelimited(modelGraph, concatBytes([...graphParts, ...addedNodes, ...addedOutputs]));
    return concatBytes([
      ...this.#modelFields.map((field) => {
        if (field === this.#graphField) return graph;
        if (field.number === modelOpset && this.#opsetVersion !== undefined && this.#isDefaultDomain(field)) {
          return lengthDelimited(modelOpset, varintField(opsetVersion, this.#opsetVersion));
        }
        return this.#bytes.subarray(field.at, field.end);
      }),
      ...[...this.#addedOpsets].map(([domain, version]) =>
        lengthDelimited(modelOpset, concatBytes([textField(opsetDomain, domain), varintField(opsetVersion, version)])),
      ),
    ]);
  }

  /** Gives the node new outputs (keeping the value-to-producer index right). */
  setOutputs(node: GraphNode, outputs: readonly string[]): void {
    node.outputs = [...outputs];
    node.changed = true;
    for (const output of outputs) this.#producers.set(output, node);
  }

  /** Marks a constant's values as edited; `toBytes` writes them. */
  markChanged(constant: FloatConstant): void {
    constant.changed = true;
    constant.node.changed = true;
  }

  /** Whether an OperatorSetIdProto names the default (ONNX) domain: no domain or an empty one. */
  #isDefaultDomain(field: WireField): boolean {
    const domain = readFields(this.#bytes, field.start, field.end).find((item) => item.number === opsetDomain);
    return domain === undefined || domain.start === domain.end;
  }

  #readConstant(name: string): FloatConstant | null {
    const node = this.producer(name);
    const value = node?.opType === 'Constant' ? node.attributes.get('value')?.find((field) => field.number === attributeTensor) : undefined;
    if (node === undefined || value === undefined) return null;
    const tensor = readFields(this.#bytes, value.start, value.end);
    if (tensor.find((field) => field.number === tensorDataType)?.value !== floatDataType) return null;
    const dimensions: number[] = [];
    for (const field of tensor.filter((item) => item.number === tensorDimensions)) {
      if (field.wireType === 0) dimensions.push(field.value);
      else dimensions.push(...readFields(this.#bytes, field.start, field.end).map((item) => item.value));
    }
    const data = tensor.find((field) => field.number === tensorRawData) ?? tensor.find((field) => field.number === tensorFloats);
    if (data === undefined || data.wireType !== 2) return null;
    // Copy: the model's bytes need not be 4-byte aligned.
    const values = new Float32Array(this.#bytes.slice(data.start, data.end).buffer);
    return { node, dimensions, values, changed: false };
  }

  #encodeNode(node: GraphNode): Uint8Array {
    const original = readFields(this.#bytes, node.field.start, node.field.end);
    const constant = node.opType === 'Constant' ? this.#constants.get(node.outputs[0] ?? '') : undefined;
    const parts: Uint8Array[] = [...node.inputs.map((input) => textField(nodeInput, input)), ...node.outputs.map((output) => textField(nodeOutput, output))];
    for (const field of original) {
      if (field.number === nodeInput || field.number === nodeOutput) continue;
      if (field.number === nodeAttribute && constant?.changed === true) continue;
      parts.push(this.#bytes.subarray(field.at, field.end));
    }
    if (constant?.changed === true) parts.push(lengthDelimited(nodeAttribute, encodeTensorAttribute(constant)));
    return concatBytes(parts);
  }
}

/** Tensor element types (TensorProto.DataType) of the typed arrays constants are written from. */
type ConstantValues = Float32Array | Uint8Array | Int8Array | Int32Array | BigInt64Array;

function dataType(values: ConstantValues): number {
  if (values instanceof Float32Array) return floatDataType;
  if (values instanceof Uint8Array) return 2;
  if (values instanceof Int8Array) return 3;
  if (values instanceof Int32Array) return 6;
  return 7;
}

/** A tensor attribute named `value`; raw data is little-endian, as typed arrays are on the CPUs onnxruntime runs on. */
function encodeTensorAttribute(constant: { readonly dimensions: readonly number[]; readonly values: ConstantValues }): Uint8Array {
  const { values } = constant;
  const tensor = concatBytes([
    ...constant.dimensions.map((dimension) => varintField(tensorDimensions, dimension)),
    varintField(tensorDataType, dataType(values)),
    lengthDelimited(tensorRawData, new Uint8Array(values.buffer, values.byteOffset, values.byteLength)),
  ]);
  return concatBytes([textField(attributeName, 'value'), lengthDelimited(attributeTensor, tensor), varintField(attributeType, tensorAttributeType)]);
}

/** A Constant node's bytes: a tensor of the given shape (no dimensions: a scalar), named `output`. */
export function encodeConstant(output: string, dimensions: readonly number[], values: ConstantValues): Uint8Array {
  return encodeNode('Constant', [], [output], [encodeTensorAttribute({ dimensions, values })]);
}

/** A NodeProto's bytes, for nodes that replace others; `domain` for an operator outside ONNX's own. */
export function encodeNode(
  opType: string,
  inputs: readonly string[],
  outputs: readonly string[],
  attributes: readonly Uint8Array[] = [],
  domain?: string,
): Uint8Array {
  return concatBytes([
    ...inputs.map((input) => textField(nodeInput, input)),
    ...outputs.map((output) => textField(nodeOutput, output)),
    textField(nodeOpType, opType),
    ...attributes.map((attribute) => lengthDelimited(nodeAttribute, attribute)),
    ...(domain === undefined ? [] : [textField(nodeDomain, domain)]),
  ]);
}

/** An AttributeProto holding one float. */
export function floatAttribute(name: string, value: number): Uint8Array {
  return concatBytes([textField(attributeName, name), floatField(attributeFloat, value), varintField(attributeType, floatAttributeType)]);
}

/** An AttributeProto holding one non-negative integer. */
export function integerAttribute(name: string, value: number): Uint8Array {
  return concatBytes([textField(attributeName, name), varintField(attributeInteger, value), varintField(attributeType, integerAttributeType)]);
}

/** An AttributeProto holding a list of non-negative integers. */
export function integersAttribute(name: string, values: readonly number[]): Uint8Array {
  return concatBytes([
    textField(attributeName, name),
    ...values.map((value) => varintField(attributeIntegers, value)),
    varintField(attributeType, integersAttributeType),
  ]);
}
