// Summaries of measured samples (milliseconds unless said otherwise).

export interface Distribution {
  count: number;
  median: number;
  p99: number;
  mean: number;
  max: number;
}

function round(value: number): number {
  return Number(value.toFixed(value < 1 ? 4 : 2));
}

/** The sample at quantile `q` (nearest rank) of already sorted values. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function summarize(values: readonly number[]): Distribution {
  const sorted = values.toSorted((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return {
    count: sorted.length,
    median: round(quantile(sorted, 0.5)),
    p99: round(quantile(sorted, 0.99)),
    mean: round(mean),
    max: round(sorted.at(-1) ?? Number.NaN),
  };
}

/** This thread's CPU time so far, in ms (what other processes' load leaves alone). */
export function threadCpuMs(): number {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Runs `run` once: its result, wall milliseconds and thread CPU milliseconds. */
export function timed<T>(run: () => T): [T, number, number] {
  const cpuStart = threadCpuMs();
  const started = performance.now();
  const result = run();
  const wall = performance.now() - started;
  return [result, wall, threadCpuMs() - cpuStart];
}

/** timed for work that awaits (its thread CPU only: work another thread does meanwhile is not counted). */
export async function timedAsync<T>(run: () => Promise<T>): Promise<[T, number, number]> {
  const cpuStart = threadCpuMs();
  const started = performance.now();
  const result = await run();
  const wall = performance.now() - started;
  return [result, wall, threadCpuMs() - cpuStart];
}
