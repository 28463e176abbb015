import { readFileSync } from "node:fs";

/** Resident set size of a process in bytes, from /proc/<pid>/status (null once it is gone). */
export function residentBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export interface MemoryTrack {
  name: string;
  pid: number;
  startBytes: number;
  endBytes: number;
  peakBytes: number;
}

/**
 * Samples the RSS of named processes: the first sample of a pid is its start, the latest its end,
 * the highest its peak. A process replaced by a new pid (a restarted worker) gets a track of its own.
 */
export class MemorySampler {
  private readonly tracks = new Map<number, MemoryTrack>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly processes: () => { name: string; pid: number }[]) {}

  sample(): void {
    for (const { name, pid } of this.processes()) {
      const bytes = residentBytes(pid);
      if (bytes === null) continue;
      const track = this.tracks.get(pid);
      if (!track) this.tracks.set(pid, { name, pid, startBytes: bytes, endBytes: bytes, peakBytes: bytes });
      else Object.assign(track, { endBytes: bytes, peakBytes: Math.max(track.peakBytes, bytes) });
    }
  }

  startEvery(intervalMs: number): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  stop(): MemoryTrack[] {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    return [...this.tracks.values()];
  }
}
