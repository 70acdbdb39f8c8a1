import type { ProbeResult } from '../../core/backends/backend.ts';
import { probeGet } from '../engine-http/probe-engine.ts';

/**
 * ComfyUI is up when `GET /system_stats` answers: it reports its version and devices without
 * touching the queue. The detail names them (bounded), since ComfyUI lists no models to compare.
 */
export async function probeComfyUi(baseUrl: string, apiKey: string | undefined, signal: AbortSignal): Promise<ProbeResult> {
  const { json } = await probeGet({ url: `${baseUrl}/system_stats`, label: 'GET /system_stats', apiKey, signal });
  const stats = (typeof json === 'object' && json !== null ? json : {}) as { system?: { comfyui_version?: unknown }; devices?: unknown };
  const version = typeof stats.system?.comfyui_version === 'string' ? stats.system.comfyui_version.slice(0, 40) : undefined;
  const devices = Array.isArray(stats.devices) ? stats.devices.length : 0;
  return { detail: `ComfyUI${version === undefined ? '' : ` ${version}`}, ${devices} device(s)` };
}
