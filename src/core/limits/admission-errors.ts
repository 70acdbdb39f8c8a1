import { ApiError } from '../errors/api-error.ts';
import type { KeyPolicy } from './key-policy.ts';

/** 1220: the key's policy does not list the model. */
export function modelNotAllowed(model: string, allowed: readonly string[]): ApiError {
  const list = allowed.length === 0 ? 'none' : allowed.join(', ');
  return new ApiError('1220', `This API key has no permission for the model '${model}' (allowed: ${list}).`);
}

/** 1302: every slot of the model is taken; one frees when a running call (or stream) ends. */
export function tooManyConcurrent(model: string, limit: number): ApiError {
  return new ApiError(
    '1302',
    `Too many concurrent requests for the model '${model}' with this API key: at most ${limit} at a time. Retry when one has finished.`,
    { 'retry-after': '1' },
  );
}

/** 1303: the minute's requests are used; Retry-After says when the next minute starts. */
export function rateLimited(limit: number, resetsAt: number, now: number): ApiError {
  const seconds = Math.max(1, Math.ceil((resetsAt - now) / 1000));
  return new ApiError('1303', `Request rate limit reached for this API key: ${limit} requests per minute. Retry in ${seconds} s.`, {
    'retry-after': String(seconds),
  });
}

/**
 * 1304 (daily quota) or 1308 (monthly usage cap), both with the reset time in the message; not
 * retryable, so x-should-retry: false and no Retry-After (the wait is hours).
 */
export function quotaExhausted(quota: NonNullable<KeyPolicy['quota']>, unit: 'tokens' | 'calls', resetsAt: number): ApiError {
  const limit = quota[unit] ?? 0;
  const reset = new Date(resetsAt).toISOString();
  if (quota.period === 'day') {
    return new ApiError('1304', `The daily quota of this API key (${limit} ${unit}) is used up; reset at ${reset}.`);
  }
  return new ApiError('1308', `The usage cap of this API key has been reached: ${limit} ${unit} per month, reset at ${reset}.`);
}

/** 1113: the prepaid credit does not cover the most this call can cost. */
export function creditExhausted(balance: number, needed: number): ApiError {
  return new ApiError(
    '1113',
    `The prepaid credit of this API key does not cover this request: the balance is ${balance} micro-units and the request may cost up to ${needed} (reserved before it runs; set max_tokens lower to reserve less); please recharge.`,
  );
}

/**
 * 1113: a key with credit called a model nothing prices: refused rather than served for free. The
 * message names the setting an operator adds the price in.
 */
export function modelNotPriced(model: string): ApiError {
  return new ApiError(
    '1113',
    `The model '${model}' has no price for this API key, which pays from prepaid credit: the operator sets it in billing.prices.${model} of the config file, or in credit.prices.${model} of the key's policy.`,
  );
}
