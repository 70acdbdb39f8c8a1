/**
 * How long one generation may take when the model's config sets no `timeoutMs`. Images take
 * seconds to a minute on a GPU; a 5-10 s video takes minutes (ComfyUI queues, long samplers).
 */
export const defaultImageTimeoutMs = 600_000;
export const defaultVideoTimeoutMs = 1_800_000;

/**
 * The task's own deadline is the engine's plus this margin, so that an engine that runs out of
 * time fails with its own, clearer reason before the task engine gives up on it.
 */
export const taskDeadlineMarginMs = 60_000;
