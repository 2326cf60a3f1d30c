import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { CheckItem } from '../../core/host/check-item.js';
import { createDatasetRegistry } from '../../datasets/dataset-registry.js';
import { createEnvRegistry } from '../../envs/env-registry.js';
import { clockLibraryUnder } from '../../sandbox/deterministic-clock.js';
import { parseImageRef } from '../../sandbox/image-ref.js';
import {
  type DebianImageStatus,
  debianImageStatus,
  imageProfiles,
  mmdebstrapAvailable,
} from '../../sandbox/images/index.js';
import { checkSqlEngines } from '../../sql/server/check-sql-engines.js';

/** A titled group of checks; `required` groups decide whether the default environment can run. */
export interface CheckGroup {
  readonly title: string;
  readonly required: boolean;
  readonly items: readonly CheckItem[];
}

function version(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    })
      .trim()
      .split('\n')[0]!;
  } catch {
    return null;
  }
}

/** Node itself: intercode needs 20 or newer. */
export function nodeCheck(): CheckItem {
  const major = Number(process.versions.node.split('.')[0]);
  return {
    name: 'node',
    ok: major >= 20,
    detail: `v${process.versions.node}`,
    fix: 'install Node.js 20 or newer',
  };
}

/** Commands the NL2Bash tasks use that a minimal Debian or Ubuntu lacks, with their packages. */
const BASH_TOOLS: readonly (readonly [command: string, pkg: string])[] = [
  ['cal', 'ncal'],
  ['column', 'bsdextrautils'],
  ['cpio', 'cpio'],
  ['curl', 'curl'],
  ['dig', 'bind9-dnsutils'],
  ['hostname', 'hostname'],
  ['jq', 'jq'],
  ['ping', 'iputils-ping'],
  ['pstree', 'psmisc'],
  ['tree', 'tree'],
  ['w', 'procps'],
];

function onPath(command: string): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin')
    .split(':')
    .some((dir) => dir !== '' && existsSync(`${dir}/${command}`));
}

/** The tools of the `host` image that Bash tasks call (missing ones make their golds fail). */
export function bashToolChecks(): CheckItem[] {
  const missing = BASH_TOOLS.filter(([command]) => !onPath(command));
  const packages = [...new Set(missing.map(([, pkg]) => pkg))];
  return [
    {
      name: 'NL2Bash tools (host image)',
      ok: missing.length === 0,
      optional: true,
      detail:
        missing.length === 0
          ? `${BASH_TOOLS.map(([command]) => command).join(' ')} present`
          : `missing: ${missing.map(([command]) => command).join(' ')}`,
      fix: `apt-get install -y --no-install-recommends ${packages.join(' ')}`,
    },
  ];
}

/** Per environment that declares tools (e.g. ctf): which of them the host image lacks. */
export function envToolChecks(): CheckItem[] {
  const registry = createEnvRegistry();
  return registry.list().flatMap(({ id }) => {
    const tools = registry.get(id).tools ?? [];
    if (tools.length === 0) return [];
    const missing = tools.filter((tool) => !onPath(tool.command));
    const packages = [...new Set(missing.map((tool) => tool.debianPackage))];
    return [
      {
        name: `${id} tools (host image)`,
        ok: missing.length === 0,
        optional: true,
        detail:
          missing.length === 0
            ? `${tools.length} tools present`
            : `missing: ${missing.map((tool) => tool.command).join(' ')}`,
        ...(packages.length > 0
          ? { fix: `apt-get install -y --no-install-recommends ${packages.join(' ')}` }
          : {}),
      },
    ];
  });
}

/** Interpreters and database engines the environments use. */
export async function environmentChecks(): Promise<CheckItem[]> {
  const items: CheckItem[] = [...bashToolChecks(), ...envToolChecks()];
  const python = version('/usr/bin/python3', ['--version']);
  items.push({
    name: 'python3 (Debian, for the Python env)',
    ok: python !== null,
    optional: true,
    detail: python ? `/usr/bin/python3: ${python}` : '/usr/bin/python3 not found',
    fix: 'apt-get install -y python3',
  });
  const clock = clockLibraryUnder('/');
  items.push({
    name: 'libfaketime (the clock of deterministic mode, host image)',
    ok: clock !== null,
    optional: true,
    detail: clock ?? 'not installed: deterministic runs on the host image leave the clock running',
    fix: 'apt-get install -y libfaketime',
  });
  let sqlite: string | null = null;
  try {
    const module = 'better-sqlite3';
    await import(module);
    sqlite = 'better-sqlite3 loads';
  } catch {
    sqlite = null;
  }
  items.push({
    name: 'sqlite engine (embedded)',
    ok: sqlite !== null,
    optional: true,
    detail: sqlite ?? 'better-sqlite3 is not installed',
    fix: 'npm install better-sqlite3@12',
  });
  items.push(...(await checkSqlEngines()));
  items.push(...debianImageChecks());
  return items;
}

/** The Debian image builder and which image profiles are built (all optional: `host` needs none). */
export function debianImageChecks(): CheckItem[] {
  const mmdebstrap = mmdebstrapAvailable();
  const items: CheckItem[] = [
    {
      name: 'mmdebstrap (builds the debian images)',
      ok: mmdebstrap,
      optional: true,
      detail: mmdebstrap ? 'installed' : 'not installed: the debian images cannot be built',
      fix: 'apt-get install -y mmdebstrap',
    },
  ];
  const families = datasetFamiliesByImage();
  for (const profile of imageProfiles()) {
    if (profile.kind !== 'root') continue;
    const status = debianImageStatus(profile.name);
    items.push({
      name: `image debian:${profile.name}`,
      ok: status.built,
      optional: true,
      detail: imageDetail(status, families.get(profile.name)),
      fix: `intercode image build ${profile.name}`,
    });
  }
  return items;
}

/**
 * The dataset families (`nl2bash` for `nl2bash/fs1`…) that run on each Debian profile when it is
 * built, as their specs name it (`DatasetSpec.image`).
 */
function datasetFamiliesByImage(): Map<string, string[]> {
  const registry = createDatasetRegistry();
  const families = new Map<string, string[]>();
  for (const { id } of registry.list()) {
    const image = registry.get(id).image;
    const ref = image === undefined ? null : parseImageRef(image);
    if (ref?.kind !== 'debian') continue;
    const family = id.split('/')[0]!;
    const known = families.get(ref.profile) ?? [];
    if (!known.includes(family)) families.set(ref.profile, [...known, family]);
  }
  return families;
}

/** An image's doctor line, with the datasets that run on it once built (else on the backend's default). */
function imageDetail(status: DebianImageStatus, families: readonly string[] | undefined): string {
  const state = status.built ? `built (key ${status.key})` : 'not built';
  if (families === undefined) return state;
  const which = `the ${families.join(', ')} datasets`;
  return status.built
    ? `${state}: ${which} run on it`
    : `${state}: ${which} run on the host image until it is`;
}
