import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MetricRegistry } from './metric-registry.ts';

/**
 * The Node process behind the platform metrics: memory, CPU time, start time and event-loop lag.
 * Sampled when scraped; the lag comes from perf_hooks' loop-delay monitor (a libuv timer every
 * 20 ms, which does not keep the process alive). Returns a stop for shutdown.
 */
export function registerProcessMetrics(registry: MetricRegistry, prefix: string): () => void {
  const resident = registry.gauge({ name: `${prefix}process_resident_memory_bytes`, help: 'Resident memory of this process in bytes.' });
  const heap = registry.gauge({ name: `${prefix}process_heap_used_bytes`, help: 'V8 heap in use in bytes.' });
  const cpu = registry.counter({ name: `${prefix}process_cpu_seconds_total`, help: 'User and system CPU time this process has used, in seconds.' });
  let cpuCounted = 0;
  const started = registry.gauge({ name: `${prefix}process_start_time_seconds`, help: 'When this process started, in Unix seconds.' });
  const lag = registry.gauge<'statistic'>({
    name: `${prefix}event_loop_lag_seconds`,
    help: 'Event-loop delay since the previous scrape: mean, p99 and max, in seconds.',
    labelNames: ['statistic'],
  });
  started.set({}, Math.round((Date.now() - process.uptime() * 1000) / 1000));
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();

  registry.collect(() => {
    const memory = process.memoryUsage();
    resident.set({}, memory.rss);
    heap.set({}, memory.heapUsed);
    const usage = process.cpuUsage();
    const cpuSeconds = (usage.user + usage.system) / 1e6;
    cpu.inc({}, Math.max(0, cpuSeconds - cpuCounted));
    cpuCounted = Math.max(cpuCounted, cpuSeconds);
    // The monitor reports nanoseconds; with no sample yet it reports NaN or a huge min, so skip that.
    if (delay.count > 0) {
      lag.set({ statistic: 'mean' }, delay.mean / 1e9);
      lag.set({ statistic: 'p99' }, delay.percentile(99) / 1e9);
      lag.set({ statistic: 'max' }, delay.max / 1e9);
    }
    delay.reset();
  });
  return () => delay.disable();
}
