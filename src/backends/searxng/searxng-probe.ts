import type { ProbeResult } from '../../core/backends/backend.ts';
import { probeGet } from '../engine-http/probe-engine.ts';

/** SearXNG answers `GET /healthz` with OK without asking any search engine: the cheapest sign it serves. */
export async function probeSearxng(baseUrl: string, apiKey: string | undefined, signal: AbortSignal): Promise<ProbeResult> {
  await probeGet({ url: `${baseUrl}/healthz`, label: 'GET /healthz', apiKey, signal });
  return { detail: 'answers' };
}
