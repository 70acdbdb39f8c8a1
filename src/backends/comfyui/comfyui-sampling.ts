import { randomInt } from 'node:crypto';

/** Sampler steps for the `{{steps}}` placeholder: the richer quality word gets twice the steps. */
export function stepsFor(quality: 'hd' | 'standard' | 'speed' | 'quality'): number {
  return quality === 'hd' || quality === 'quality' ? 50 : 25;
}

/** A fresh seed per request (below 2^48: an exact JSON number, and in range for every sampler). */
export function freshSeed(): number {
  return randomInt(0, 2 ** 47);
}
