// Prints the top frames of a V8 .cpuprofile (from `node --cpu-prof`) by self time.
//
//   node src/top-frames.ts profiles/CPU.*.cpuprofile [count]

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per frame (function + file + line), biggest first, in milliseconds. */
export function topFrames(profile: Profile, count: number): { frame: string; ms: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (node === undefined) return;
    const f = node.callFrame;
    const file = f.url.replace(/^.*\/(packages|node_modules)\//, '$1/');
    const key = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...self.entries()]
    .map(([frame, ms]) => ({ frame, ms }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count);
}

/** Where self time went: kubets packages, Node internals, GC, idle, natives. */
export function byArea(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const url = byId.get(id)?.callFrame.url ?? '';
    const name = byId.get(id)?.callFrame.functionName ?? '';
    const area =
      /packages\/(\w+)\//.exec(url)?.[0] ??
      (url.includes('node_modules') ? 'node_modules' : undefined) ??
      (url.startsWith('node:') ? 'node internals (streams, http, tls, timers)' : undefined) ??
      (url.includes('apps/bench') ? 'apps/bench' : undefined) ??
      (name === 'dispatch' ? '(inspector session: the window profiler itself)' : undefined) ??
      (name.startsWith('(') ? name : 'natives / builtins (JSON.parse, …)');
    out.set(area, (out.get(area) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return new Map([...out.entries()].sort((a, b) => b[1] - a[1]));
}

if (import.meta.main) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: node src/top-frames.ts FILE.cpuprofile [count]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const total = profile.timeDeltas.reduce((a, b) => a + b, 0) / 1000;
  process.stdout.write(`total ${total.toFixed(0)} ms\n`);
  for (const [area, ms] of byArea(profile)) {
    process.stdout.write(`${ms.toFixed(1).padStart(9)} ms  ${area}\n`);
  }
  process.stdout.write('top frames by self time:\n');
  for (const { frame, ms } of topFrames(profile, Number(process.argv[3] ?? 25))) {
    process.stdout.write(
      `${ms.toFixed(1).padStart(9)} ms  ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${frame}\n`,
    );
  }
}
