/** A weight tensor in signed integers, with one scale per output channel. */
export interface QuantizedWeights {
  readonly weights: Int8Array;
  readonly scales: Float32Array;
}

/**
 * Symmetric quantization per output channel: each channel's scale maps its largest magnitude to
 * `weightLimit` (model-quantization.ts says when it is 63 rather than 127), zero stays zero.
 * `indexOf(channel, position)` is where the channel's value at `position` lies in `values` (rows
 * of a convolution's weights, columns of a matrix).
 */
export function quantizeWeightsPerChannel(
  values: Float32Array,
  channels: number,
  perChannel: number,
  indexOf: (channel: number, position: number) => number,
  weightLimit: number,
): QuantizedWeights {
  const weights = new Int8Array(values.length);
  const scales = new Float32Array(channels);
  for (let channel = 0; channel < channels; channel++) {
    let largest = 0;
    for (let position = 0; position < perChannel; position++) largest = Math.max(largest, Math.abs(values[indexOf(channel, position)] ?? 0));
    const scale = largest === 0 ? 1 : largest / weightLimit;
    scales[channel] = scale;
    for (let position = 0; position < perChannel; position++) {
      const index = indexOf(channel, position);
      weights[index] = Math.round((values[index] ?? 0) / scale);
    }
  }
  return { weights, scales };
}
