import { SandboxError } from '../../core/errors.js';

/** A Debian root file system built by mmdebstrap from a declared package list. */
export interface RootProfile {
  readonly kind: 'root';
  readonly name: string;
  readonly description: string;
  /** Debian packages installed on top of the minbase variant (their dependencies come along). */
  readonly packages: readonly string[];
  /** Shell commands run on the finished root (`$1` is its path), part of the image key. */
  readonly customize?: readonly string[];
}

/** A file-system layer built on a root profile by running a dataset's setup script (the Bash env does it). */
export interface LayerProfile {
  readonly kind: 'layer';
  readonly name: string;
  readonly description: string;
  /** The root profile under the layer. */
  readonly base: string;
  /** The dataset whose setup script builds the layer. */
  readonly dataset: string;
}

export type ImageProfile = RootProfile | LayerProfile;

/**
 * What the NL2Bash golds call (the list `.ci/run` installs on the host for the `host` image, plus
 * the basics a minbase root may lack). `python3-minimal` is there for the `#!/usr/bin/env python3`
 * scripts the NL2Bash file system 1 creates and for the sandbox conformance suite.
 */
const BASH_PACKAGES = [
  'bash',
  'coreutils',
  'findutils',
  'grep',
  'sed',
  'gawk',
  'tar',
  'gzip',
  'bzip2',
  'xz-utils',
  'zip',
  'unzip',
  'diffutils',
  'util-linux',
  'mount',
  'less',
  'procps',
  'psmisc',
  'file',
  'tree',
  'ncal',
  'bsdextrautils',
  'cpio',
  'curl',
  'bind9-dnsutils',
  'hostname',
  'jq',
  'iputils-ping',
  'rename',
  'python3-minimal',
  // The clock of deterministic sandboxes (`SandboxSpec.deterministic`); loaded only there.
  'libfaketime',
] as const;

/** What upstream's CTF image installs (Debian names), plus a Java compiler for the Java tasks. */
const CTF_PACKAGES = [
  'python3',
  'python3-pip',
  'python3-pycryptodome',
  'bsdmainutils',
  'cron',
  'imagemagick',
  'git',
  'wget',
  'gcc',
  'libc6-dev',
  'sleuthkit',
  'netcat-openbsd',
  'gdb',
  'poppler-utils',
  'default-jdk-headless',
  'xxd',
  'binutils',
] as const;

const PROFILES: readonly ImageProfile[] = [
  {
    kind: 'root',
    name: 'bash',
    description: 'the tools NL2Bash tasks use (the default `debian` image)',
    packages: BASH_PACKAGES,
  },
  {
    kind: 'root',
    name: 'python',
    description: 'bash profile plus Python 3',
    packages: [...BASH_PACKAGES, 'python3'],
  },
  {
    kind: 'root',
    name: 'ctf',
    description: 'bash profile plus the CTF tools (compilers, debuggers, forensics, Java)',
    packages: [...BASH_PACKAGES, ...CTF_PACKAGES],
    // Debian ships PyCryptodome as `Cryptodome`; CTF solutions import it as `Crypto` (pip's name).
    customize: ['ln -s Cryptodome "$1/usr/lib/python3/dist-packages/Crypto"'],
  },
  ...[1, 2, 3, 4].map(
    (n): LayerProfile => ({
      kind: 'layer',
      name: `nl2bash-fs${n}`,
      description: `bash profile plus the NL2Bash file system ${n} (upstream setup script)`,
      base: 'bash',
      dataset: `nl2bash/fs${n}`,
    }),
  ),
];

/** Whether the root profile `name` installs libfaketime (every profile does: they build on bash). */
export function profileHasClockLibrary(name: string): boolean {
  return rootProfile(name).packages.includes('libfaketime');
}

/** Every declared image profile, roots first. */
export function imageProfiles(): readonly ImageProfile[] {
  return PROFILES;
}

/** The profile called `name`; a SandboxError listing the known ones otherwise. */
export function imageProfile(name: string): ImageProfile {
  const profile = PROFILES.find((candidate) => candidate.name === name);
  if (!profile) {
    throw new SandboxError(
      'SANDBOX_INVALID_SPEC',
      `unknown image profile "${name}" (known: ${PROFILES.map((p) => p.name).join(', ')})`,
    );
  }
  return profile;
}

/** The root profile called `name`; layer profiles are rejected with the way to use them. */
export function rootProfile(name: string): RootProfile {
  const profile = imageProfile(name);
  if (profile.kind === 'layer') {
    throw new SandboxError(
      'SANDBOX_INVALID_SPEC',
      `"${name}" is a file-system layer on debian:${profile.base}, not an image: ` +
        `run the ${profile.dataset} dataset with image debian:${profile.base}`,
    );
  }
  return profile;
}
