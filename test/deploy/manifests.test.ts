import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createProgram } from '../../src/cli/main.js';
import { DEFAULT_LIMITS } from '../../src/sandbox/sandbox.js';
import type { Container, K8sObject } from './k8s-object.js';
import {
  cpuCores,
  flagsOf,
  memoryBytes,
  probePath,
  registeredFlags,
  unknownFlags,
} from './manifest-checks.js';

// The Kubernetes manifests and the Dockerfile of deploy/ against the real command tree and the real
// sources: flags that exist, resource limits that cover the sandbox limits, probes on real endpoints.
// A unit test: nothing is started; the YAML is parsed, commander's options are read.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const K8S = join(ROOT, 'deploy/kubernetes');
const MIB = 1024 * 1024;

interface Manifest {
  readonly file: string;
  readonly doc: K8sObject;
}

function loadManifests(): Manifest[] {
  const files = readdirSync(K8S).filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml');
  return files.flatMap((file) => {
    const docs = parseAllDocuments(readFileSync(join(K8S, file), 'utf8'));
    const list = Array.isArray(docs) ? docs : [docs];
    return list.map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
      return { file, doc: doc.toJS() as K8sObject };
    });
  });
}

const manifests = loadManifests();
const program = await createProgram();

function workload(name: string): K8sObject {
  const found = manifests.find(
    (m) => ['Deployment', 'StatefulSet'].includes(m.doc.kind) && m.doc.metadata?.name === name,
  );
  if (!found) throw new Error(`no Deployment or StatefulSet named ${name} in deploy/kubernetes`);
  return found.doc;
}

function containersOf(doc: K8sObject): Container[] {
  return doc.spec?.template?.spec.containers ?? [];
}

function container(name: string): Container {
  const first = containersOf(workload(name))[0];
  if (!first) throw new Error(`${name} has no container`);
  return first;
}

/** The intercode containers: those whose image is the project's. */
const intercodeContainers = manifests.flatMap((m) =>
  containersOf(m.doc)
    .filter((c) => String(c.image).startsWith('intercode'))
    .map((c) => ({ workload: m.doc.metadata.name, container: c })),
);

/** Every string literal of the files under src/server (empty before the server exists). */
function serverSources(): string {
  const dir = join(ROOT, 'src/server');
  if (!existsSync(dir)) return '';
  const walk = (path: string): string[] =>
    statSync(path).isDirectory()
      ? readdirSync(path).flatMap((name) => walk(join(path, name)))
      : path.endsWith('.ts')
        ? [readFileSync(path, 'utf8')]
        : [];
  return walk(dir).join('\n');
}

describe('deploy/kubernetes', () => {
  it('parses, every document has a kind and a name, and kustomization lists every file', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(6);
    for (const { file, doc } of manifests) {
      expect(doc.kind, file).toMatch(/^[A-Z]\w+$/);
      expect(doc.metadata?.name, file).toMatch(/^[a-z0-9-]+$/);
    }
    const kustomization = parseAllDocuments(readFileSync(join(K8S, 'kustomization.yaml'), 'utf8'));
    const kz = (Array.isArray(kustomization) ? kustomization[0] : kustomization)?.toJS() as {
      resources?: string[];
    };
    const files = new Set(manifests.map((m) => m.file));
    expect(new Set(kz.resources)).toEqual(files);
  });

  it('every secret key the manifests read is in secrets.env.example, and no real value is committed', () => {
    const example = readFileSync(join(K8S, 'secrets.env.example'), 'utf8');
    const keys = new Set([...example.matchAll(/^#?\s*([\w-]+)=/gm)].map((match) => match[1]));
    const refs = JSON.stringify(manifests.map((m) => m.doc)).matchAll(
      /"secretKeyRef":\{"name":"intercode-secrets","key":"([\w-]+)"/g,
    );
    const used = [...refs].map((match) => match[1]);
    expect(used.length).toBeGreaterThanOrEqual(3);
    for (const key of used) expect(keys.has(key), `secrets.env.example lacks ${key}`).toBe(true);
    expect(existsSync(join(K8S, 'secrets.env'))).toBe(false);
  });

  it('every container has cpu and memory requests and limits, requests within limits', () => {
    for (const m of manifests) {
      if (!['Deployment', 'StatefulSet'].includes(m.doc.kind)) continue;
      for (const c of containersOf(m.doc)) {
        const where = `${m.doc.metadata.name}/${c.name}`;
        const { requests = {}, limits = {} } = c.resources ?? {};
        for (const key of ['cpu', 'memory'] as const) {
          expect(requests[key], `${where} requests.${key}`).toBeDefined();
          expect(limits[key], `${where} limits.${key}`).toBeDefined();
        }
        expect(cpuCores(requests.cpu ?? '')).toBeLessThanOrEqual(cpuCores(limits.cpu ?? ''));
        expect(memoryBytes(requests.memory ?? '')).toBeLessThanOrEqual(memoryBytes(limits.memory ?? ''));
      }
    }
  });

  it('Redis keeps its data (append-only file on a volume) and never evicts (BullMQ needs noeviction)', () => {
    const config = manifests.find(
      (m) => m.doc.kind === 'ConfigMap' && m.doc.metadata.name === 'redis-config',
    );
    const conf = String(config?.doc.data?.['redis.conf']);
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^maxmemory-policy noeviction$/m);
    const redis = workload('redis');
    expect(redis.kind).toBe('StatefulSet');
    expect(redis.spec?.volumeClaimTemplates?.[0]?.metadata.name).toBe('data');
    const maxmemory = /^maxmemory (\d+)mb$/m.exec(conf);
    expect(maxmemory).not.toBeNull();
    const limit = memoryBytes(container('redis').resources?.limits?.memory ?? '');
    expect(Number(maxmemory?.[1]) * MIB).toBeLessThan(limit);
    expect(container('redis').command).toContain('--requirepass');
  });

  it('the worker: memory limit covers concurrency x 2 sandboxes x the sandbox memory limit, grace before SIGKILL', () => {
    const args = container('intercode-worker').args ?? [];
    const concurrency = Number(args[args.indexOf('--concurrency') + 1]);
    const grace = Number(args[args.indexOf('--grace') + 1]);
    expect(concurrency).toBeGreaterThanOrEqual(1);
    const limits = container('intercode-worker').resources?.limits ?? {};
    expect(memoryBytes(limits.memory ?? '')).toBeGreaterThanOrEqual(
      concurrency * 2 * DEFAULT_LIMITS.memoryBytes + 512 * MIB,
    );
    expect(cpuCores(limits.cpu ?? '')).toBeGreaterThanOrEqual(concurrency);
    expect(grace).toBeGreaterThan(0);
    expect(
      workload('intercode-worker').spec?.template?.spec.terminationGracePeriodSeconds,
    ).toBeGreaterThanOrEqual(grace + 10);
  });

  it('the server: token from the Secret, probes on /intercode/ready and /health at its port, sticky Service', () => {
    const server = container('intercode-server');
    const args = server.args ?? [];
    const port = Number(args[args.indexOf('--port') + 1]);
    expect(server.ports?.[0]?.containerPort).toBe(port);
    const token = server.env?.find((e) => e.name === 'INTERCODE_SERVER_TOKEN');
    expect(token?.valueFrom?.secretKeyRef?.name).toBe('intercode-secrets');
    expect(probePath(server.readinessProbe, port)).toBe('/intercode/ready');
    expect(probePath(server.livenessProbe, port)).toBe('/health');
    const service = manifests.find(
      (m) => m.doc.kind === 'Service' && m.doc.metadata.name === 'intercode-server',
    );
    expect(service?.doc.spec?.sessionAffinity).toBe('ClientIP');
    const idle = Number(args[args.indexOf('--idle-timeout') + 1]);
    expect(service?.doc.spec?.sessionAffinityConfig?.clientIP.timeoutSeconds).toBeGreaterThan(idle);
  });

  const sources = serverSources();
  it('the probed endpoints are routes of src/server', () => {
    const server = container('intercode-server');
    for (const probe of [server.readinessProbe, server.livenessProbe]) {
      const path = probePath(probe, 8000);
      expect(sources, `src/server has no route ${path}`).toContain(`'${path}'`);
    }
  });

  for (const { workload: name, container: c } of intercodeContainers) {
    const args = c.args ?? [];
    const command = args[0] ?? '';
    const registered = registeredFlags(program, command);
    it.skipIf(registered === undefined)(
      `${name}: \`intercode ${command}\` exists and takes every flag given (skipped until the command is registered)`,
      () => {
        expect(unknownFlags(flagsOf(args), registered ?? new Set())).toEqual([]);
      },
    );
  }

  it('the flag check fails on a flag a command lacks', () => {
    const doctor = registeredFlags(program, 'doctor');
    expect(doctor).toBeDefined();
    expect(unknownFlags(flagsOf(['doctor', '--json']), doctor ?? new Set())).toEqual([]);
    expect(unknownFlags(flagsOf(['doctor', '--json', '--redis', 'redis://x']), doctor ?? new Set())).toEqual(
      doctor?.has('--redis') ? [] : ['--redis'],
    );
    expect(unknownFlags(flagsOf(['doctor', '--no-such-flag=1']), doctor ?? new Set())).toEqual([
      '--no-such-flag',
    ]);
    expect(registeredFlags(program, 'no-such-command')).toBeUndefined();
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8');

  it('Debian 12 with Node.js 20, the bwrap backend packages, the package from its tarball, intercode as entry point', () => {
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const image of froms) expect(image).toMatch(/^node:20-bookworm/);
    for (const pkg of ['bubblewrap', 'util-linux', 'python3'])
      expect(dockerfile).toMatch(new RegExp(`\\b${pkg}\\b`));
    expect(dockerfile).toMatch(/npm install --global .*intercode-\*\.tgz/);
    expect(dockerfile).toMatch(/^ENTRYPOINT \[.*"intercode"\]$/m);
  });
});
