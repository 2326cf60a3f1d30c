import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layer order of `src/` as CONTRIBUTING.md states it, checked against every relative import and
 * re-export (static and dynamic) of every TypeScript file in `src/`.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');

/** The rows of the markdown table that follows `<!-- marker -->` in CONTRIBUTING.md. */
function tableAfter(marker: string): string[][] {
  const text = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  const start = text.indexOf(`<!-- ${marker}:`);
  if (start < 0) throw new Error(`CONTRIBUTING.md has no <!-- ${marker}: … --> table`);
  const rows: string[][] = [];
  for (const line of text.slice(start).split('\n').slice(1)) {
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells.every((cell) => /^-*$/.test(cell))) continue;
    rows.push(cells);
  }
  return rows.slice(1);
}

const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** Folder → the folders it may import (the table's first and last columns). */
const allowed = new Map(
  tableAfter('layers').map((cells) => [names(cells[0]!)[0]!, new Set(names(cells.at(-1)!))] as const),
);
const siblings = tableAfter('siblings').map(([cell]) => names(cell!));

/** The layer of a path under src/: the longest folder of the table it lies in. */
function layerOf(path: string): string | undefined {
  const candidates = [...allowed.keys()].filter((layer) => path === layer || path.startsWith(`${layer}/`));
  return candidates.sort((a, b) => b.length - a.length)[0];
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly where: string;
}

function importEdges(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*'(\.[^']*)'|\bimport\(\s*'(\.[^']*)'\s*\)/g;
  for (const file of sourceFiles(SRC)) {
    const from = relative(SRC, file).split('\\').join('/');
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(pattern)) {
      const specifier = (match[1] ?? match[2])!;
      const to = posix.normalize(posix.join(posix.dirname(from), specifier));
      const line = text.slice(0, match.index).split('\n').length + (match[0].startsWith('\n') ? 1 : 0);
      edges.push({ from, to, where: `src/${from}:${line} imports ${specifier}` });
    }
  }
  return edges;
}

describe('layers', () => {
  const edges = importEdges();

  it('reads the tables of CONTRIBUTING.md and finds the imports of src/', () => {
    expect(allowed.get('core')).toEqual(new Set());
    expect(allowed.get('envs')).toContain('sandbox');
    expect(allowed.has('cli')).toBe(true);
    expect(siblings.length).toBeGreaterThan(0);
    expect(edges.length).toBeGreaterThan(500);
  });

  it('every import points to the same layer or one the layer may import', () => {
    const wrong: string[] = [];
    for (const edge of edges) {
      if (edge.from === 'index.ts') continue;
      const from = layerOf(edge.from);
      const to = layerOf(edge.to);
      if (from === undefined) {
        wrong.push(`${edge.where}: src/${dirname(edge.from)} is in no layer of CONTRIBUTING.md`);
        continue;
      }
      if (to === undefined) {
        wrong.push(`${edge.where}: ${edge.to} is in no layer of CONTRIBUTING.md`);
        continue;
      }
      if (from !== to && !allowed.get(from)!.has(to))
        wrong.push(`${edge.where}: ${from} may not import ${to}`);
    }
    expect(wrong).toEqual([]);
  });

  it('siblings never import each other', () => {
    const wrong: string[] = [];
    for (const group of siblings) {
      for (const edge of edges) {
        const from = group.find((folder) => edge.from.startsWith(`${folder}/`));
        const to = group.find((folder) => edge.to.startsWith(`${folder}/`));
        if (from && to && from !== to) wrong.push(`${edge.where}: ${from} may not import its sibling ${to}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the checker catches a wrong import (an envs module reaching up into harness)', () => {
    const from = layerOf('envs/bash/bash-env.ts')!;
    const to = layerOf('harness/run-plan.ts')!;
    expect([from, to]).toEqual(['envs', 'harness']);
    expect(allowed.get(from)!.has(to)).toBe(false);
    expect(layerOf('core/host/owner.ts')).toBe('core');
  });
});
