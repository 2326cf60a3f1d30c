import type { Command } from 'commander';
import type { Probe } from './k8s-object.js';

// Small readers for the manifest test: Kubernetes quantities, the flags of a container's args, the path a
// probe asks for, and the long options a registered command takes.

const MEMORY_UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
};

/** A Kubernetes memory quantity (`512Mi`, `2Gi`, `1e9`, `800M`) in bytes. */
export function memoryBytes(quantity: string | number): number {
  const match = /^(\d+(?:\.\d+)?)([kMGT]i?|)$/.exec(String(quantity));
  const unit = match ? MEMORY_UNITS[match[2] ?? ''] : undefined;
  if (!match || unit === undefined) throw new Error(`not a memory quantity: ${quantity}`);
  return Number(match[1]) * unit;
}

/** A Kubernetes CPU quantity (`2`, `500m`, `1.5`) in cores. */
export function cpuCores(quantity: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(m?)$/.exec(String(quantity));
  if (!match) throw new Error(`not a cpu quantity: ${quantity}`);
  return match[2] === 'm' ? Number(match[1]) / 1000 : Number(match[1]);
}

/** The long flags of a command line (`--port 8000`, `--port=8000`), in order. */
export function flagsOf(args: readonly string[]): string[] {
  return args.filter((arg) => arg.startsWith('--')).map((arg) => arg.split('=')[0] ?? arg);
}

/** Flags the command does not take. */
export function unknownFlags(flags: readonly string[], known: ReadonlySet<string>): string[] {
  return flags.filter((flag) => !known.has(flag));
}

/** The long options of a top-level command, or undefined when no such command is registered. */
export function registeredFlags(program: Command, name: string): Set<string> | undefined {
  const command = program.commands.find((sub) => sub.name() === name);
  if (!command) return undefined;
  const flags = command.options.flatMap((option) => (option.long ? [option.long] : []));
  return new Set([...flags, '--help']);
}

/**
 * The path a probe requests: `httpGet.path`, or the URL on 127.0.0.1:<port> in an exec probe's command.
 * Throws when the probe asks for neither.
 */
export function probePath(probe: Probe | undefined, port: number): string {
  if (probe?.httpGet?.path) return probe.httpGet.path;
  const line = (probe?.exec?.command ?? []).join(' ');
  const match = new RegExp(`http://(?:127\\.0\\.0\\.1|localhost):${port}(/[^\\s"']*)`).exec(line);
  if (!match?.[1]) throw new Error(`probe requests no path on port ${port}: ${JSON.stringify(probe)}`);
  return match[1];
}
