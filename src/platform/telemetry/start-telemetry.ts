import type { PlatformLogger } from '../create-logger.ts';

/** Tracing as the process runs it: `shutdown` sends the spans still buffered, then stops. */
export interface Telemetry {
  shutdown(): Promise<void>;
}

/**
 * Whether the environment asks for traces: an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and neither `OTEL_SDK_DISABLED=true` nor
 * `OTEL_TRACES_EXPORTER=none` turns it off.
 */
export function tracingRequested(environment: NodeJS.ProcessEnv): boolean {
  if (environment['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  if (environment['OTEL_TRACES_EXPORTER']?.trim().toLowerCase() === 'none') return false;
  return Boolean(environment['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim() || environment['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim());
}

/**
 * Starts OpenTelemetry tracing when the environment asks for it, else returns undefined having
 * loaded none of the SDK (it is imported only here, on demand). Call it before the platform's
 * modules are imported: the database and Redis clients are instrumented as they load.
 * The SDK reads its other standard OTEL_* variables (service name, sampler, batch sizes, exporter
 * headers and timeout) from the process environment itself.
 */
export async function startTelemetry(environment: NodeJS.ProcessEnv, logger: PlatformLogger): Promise<Telemetry | undefined> {
  if (!tracingRequested(environment)) return undefined;
  const { startTracing } = await import('./tracing-sdk.ts');
  return startTracing(environment, logger);
}

/**
 * Runs a long-lived command (serve, worker) with tracing when asked for: started before the
 * command's modules load, and flushed once the command has closed everything.
 */
export async function withTelemetry(environment: NodeJS.ProcessEnv, command: () => Promise<number>): Promise<number> {
  const { createLogger } = await import('../create-logger.ts');
  const telemetry = await startTelemetry(environment, createLogger(environment));
  try {
    return await command();
  } finally {
    await telemetry?.shutdown();
  }
}
