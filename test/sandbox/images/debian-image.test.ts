import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptLayerStatus } from '../../../src/envs/bash/script-layer.js';
import {
  BwrapProvider,
  DEBIAN_SUITE,
  debianImageKey,
  debianImageStatus,
  ensureDebianImage,
  imageIdentity,
  imageProfiles,
  installedPackages,
  mmdebstrapAvailable,
  parseDeb822Sources,
  parseOneLineSources,
  pruneDebianImages,
  type RootProfile,
  releaseSources,
  rootProfile,
  staleDebianImages,
} from '../../../src/sandbox/index.js';

const profile = (packages: string[]): RootProfile => ({
  kind: 'root',
  name: 'test',
  description: 'test',
  packages,
});

let cache = '';
let previousCache: string | undefined;

beforeAll(() => {
  previousCache = process.env.INTERCODE_CACHE_DIR;
  cache = mkdtempSync(join(tmpdir(), 'intercode-image-test-'));
  process.env.INTERCODE_CACHE_DIR = cache;
});

afterAll(() => {
  if (previousCache === undefined) delete process.env.INTERCODE_CACHE_DIR;
  else process.env.INTERCODE_CACHE_DIR = previousCache;
  rmSync(cache, { recursive: true, force: true });
});

describe('image keys', () => {
  it('change when the package list or the architecture changes, not with order or duplicates', () => {
    const base = debianImageKey(profile(['bash', 'coreutils']));
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(debianImageKey(profile(['coreutils', 'bash', 'bash']))).toBe(base);
    expect(debianImageKey(profile(['bash', 'coreutils', 'tree']))).not.toBe(base);
    expect(debianImageKey(profile(['bash']))).not.toBe(base);
    expect(debianImageKey({ ...profile(['bash', 'coreutils']), customize: ['touch "$1/x"'] })).not.toBe(base);
    expect(debianImageKey(profile(['bash', 'coreutils']), 'arm64')).not.toBe(
      debianImageKey(profile(['bash', 'coreutils']), 'amd64'),
    );
  });

  it('differ between the declared profiles, and the cache folder is named by the key', () => {
    const roots = imageProfiles().filter((item) => item.kind === 'root');
    expect(roots.map((item) => item.name)).toEqual(['bash', 'python', 'ctf']);
    const keys = roots.map((item) => debianImageKey(rootProfile(item.name)));
    expect(new Set(keys).size).toBe(3);
    const status = debianImageStatus('python');
    expect(status).toMatchObject({ built: false, profile: 'python', key: keys[1] });
    expect(status.dir).toBe(join(cache, 'images', `debian-python-${keys[1]}`));
    expect(status.rootfs.startsWith(status.dir)).toBe(true);
    expect(status.tarball.startsWith(status.dir)).toBe(true);
  });

  it('enter the identity of a debian image, so that layers built on it follow its package list', () => {
    const bashKey = debianImageKey(rootProfile('bash'));
    expect(imageIdentity('debian')).toBe(`debian:bash@${bashKey}`);
    expect(imageIdentity('debian:bash')).toBe(imageIdentity('debian'));
    expect(imageIdentity('debian:ctf')).toContain(debianImageKey(rootProfile('ctf')));
    expect(imageIdentity('host')).toBe('host');
    const layer = (image: string) =>
      scriptLayerStatus({ name: 'probe', script: 'touch /x\n', image, keepEmptyUnder: new Set() });
    expect(layer('debian').key).not.toBe(layer('host').key);
    expect(layer('debian').key).not.toBe(layer('debian:python').key);
    expect(layer('debian').key).toBe(layer('debian:bash').key);
  });
});

describe('image names and profiles', () => {
  it('rejects unknown profiles with the known ones, and layer profiles with how to use them', async () => {
    expect(() => rootProfile('nope')).toThrow(
      /unknown image profile "nope" \(known: bash, python, ctf, nl2bash-fs1/,
    );
    expect(() => rootProfile('nl2bash-fs2')).toThrow(/file-system layer on debian:bash/);
    await expect(ensureDebianImage('nope')).rejects.toMatchObject({ code: 'SANDBOX_INVALID_SPEC' });
  });

  it('gives a one-line error naming the build command when a sandbox asks for an image not built', async () => {
    const provider = new BwrapProvider();
    try {
      await expect(provider.create({ image: 'debian:python' })).rejects.toMatchObject({
        name: 'SandboxError',
        code: 'SANDBOX_UNAVAILABLE',
        message: expect.stringMatching(
          /^image debian:python is not built yet: run `intercode image build python`[^\n]*$/,
        ),
      });
      await expect(provider.create({ image: 'debian:nope' })).rejects.toMatchObject({
        code: 'SANDBOX_INVALID_SPEC',
      });
    } finally {
      await provider.close();
    }
  });
});

describe('apt sources', () => {
  const deb822 = [
    'Types: deb',
    'URIs: http://mirror.invalid/debian',
    'Suites: bookworm bookworm-updates',
    'Components: main contrib',
    'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg',
    '',
    'Types: deb',
    'URIs: http://mirror.invalid/debian-security',
    'Suites: bookworm-security',
    'Components: main',
    '',
    'Types: deb',
    'URIs: http://other.invalid/node',
    'Suites: nodistro',
    'Components: main',
    '',
    'Types: deb-src',
    'URIs: http://mirror.invalid/debian',
    'Suites: bookworm',
    'Components: main',
    '',
    'Enabled: no',
    'Types: deb',
    'URIs: http://disabled.invalid/debian',
    'Suites: bookworm',
    'Components: main',
  ].join('\n');

  it('keeps the deb entries of the suite, main only, from both file formats', () => {
    const parsed = parseDeb822Sources(deb822);
    expect(parsed).toHaveLength(3);
    const text = releaseSources(DEBIAN_SUITE, parsed);
    expect(text).toContain(
      'URIs: http://mirror.invalid/debian\nSuites: bookworm bookworm-updates\nComponents: main\n',
    );
    expect(text).toContain('Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg');
    expect(text).toContain('Suites: bookworm-security');
    expect(text).not.toContain('other.invalid');
    expect(text).not.toContain('disabled.invalid');
    const oneLine = parseOneLineSources(
      '# comment\ndeb [signed-by=/k.gpg arch=amd64] http://a.invalid/debian bookworm main\ndeb http://b.invalid/x bullseye main\n',
    );
    expect(oneLine).toEqual([
      { uris: ['http://a.invalid/debian'], suites: ['bookworm'], components: ['main'], signedBy: '/k.gpg' },
      { uris: ['http://b.invalid/x'], suites: ['bullseye'], components: ['main'] },
    ]);
    expect(releaseSources('bookworm', oneLine)).toBe(
      'Types: deb\nURIs: http://a.invalid/debian\nSuites: bookworm\nComponents: main\nSigned-By: /k.gpg\n',
    );
    expect(releaseSources('trixie', oneLine)).toBeNull();
  });
});

describe('manifest', () => {
  it('lists the installed packages of a root with their versions, sorted', () => {
    const root = join(cache, 'fake-root');
    mkdirSync(join(root, 'var', 'lib', 'dpkg'), { recursive: true });
    writeFileSync(
      join(root, 'var', 'lib', 'dpkg', 'status'),
      [
        'Package: tree\nStatus: install ok installed\nArchitecture: amd64\nVersion: 2.1.0-1',
        'Package: gone\nStatus: deinstall ok config-files\nArchitecture: amd64\nVersion: 1.0',
        'Package: bash\nStatus: install ok installed\nPriority: required\nArchitecture: amd64\nVersion: 5.2.15-2+b7\nDescription: x\n more',
      ].join('\n\n'),
    );
    expect(installedPackages(root)).toEqual([
      { name: 'bash', version: '5.2.15-2+b7', architecture: 'amd64' },
      { name: 'tree', version: '2.1.0-1', architecture: 'amd64' },
    ]);
  });
});

describe('stale images', () => {
  it('are older keys, builds of dead processes and failure logs; prune removes only them', () => {
    const images = join(cache, 'images');
    const key = debianImageKey(rootProfile('bash'));
    const make = (name: string, file = false) => {
      if (file) writeFileSync(join(images, name), 'log');
      else mkdirSync(join(images, name, 'rootfs'), { recursive: true });
      return join(images, name);
    };
    mkdirSync(images, { recursive: true });
    const keep = [
      make(`debian-bash-${key}`),
      make(`debian-bash-${key}.tmp-${process.pid}-1`),
      make(`debian-bash-${key}.tmp-${process.pid}-1.log`, true),
      make('host-0123456789abcdef'),
    ];
    const stale = [
      make('debian-bash-0000000000000000'),
      make('debian-ctf-0000000000000000'),
      make(`debian-bash-${key}.tmp-999999999-1`),
      make(`debian-bash-${key}.tmp-999999999-1.log`, true),
      make(`debian-bash-${key}.failed.log`, true),
    ];
    expect(staleDebianImages()).toEqual([...stale].sort());
    expect(pruneDebianImages()).toEqual([...stale].sort());
    expect(staleDebianImages()).toEqual([]);
    for (const path of keep) expect(existsSync(path), path).toBe(true);
    for (const path of stale) expect(existsSync(path), path).toBe(false);
  });
});

describe('building', () => {
  it.runIf(mmdebstrapAvailable() && process.getuid?.() === 0)(
    'leaves no half-built image when a build is interrupted',
    async () => {
      const own = join(cache, 'interrupted');
      process.env.INTERCODE_CACHE_DIR = own;
      const controller = new AbortController();
      const lines: string[] = [];
      const build = ensureDebianImage('bash', {
        signal: controller.signal,
        onProgress: (line) => {
          lines.push(line);
          if (/apt-get update/.test(line)) controller.abort();
        },
      });
      await expect(build).rejects.toMatchObject({ name: 'SandboxError', message: 'image build interrupted' });
      expect(lines.some((line) => /apt-get update/.test(line))).toBe(true);
      const status = debianImageStatus('bash');
      expect(status.built).toBe(false);
      expect(existsSync(status.dir)).toBe(false);
      const left = readdirSync(join(own, 'images'));
      expect(left.filter((name) => name.includes('.tmp-'))).toEqual([]);
      expect(left).toContain(`debian-bash-${status.key}.failed.log`);
      expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(own);
      process.env.INTERCODE_CACHE_DIR = cache;
    },
    120_000,
  );
});
