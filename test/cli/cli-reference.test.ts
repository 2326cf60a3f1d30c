import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/main.js';

// The CLI reference (docs/cli/) against the real command tree: every command has a section, and every
// long option of a command is mentioned in that section. A unit test: nothing is run but commander.

const CLI_DOCS = fileURLToPath(new URL('../../docs/cli/', import.meta.url));
const INDEX = 'README.md';

interface CommandEntry {
  /** `run`, `image build`, … */
  readonly name: string;
  readonly command: Command;
}

/** Every registered command and subcommand, depth first. */
function commandsOf(command: Command, parents: readonly string[] = []): CommandEntry[] {
  return command.commands.flatMap((sub) => {
    const path = [...parents, sub.name()];
    return [{ name: path.join(' '), command: sub }, ...commandsOf(sub, path)];
  });
}

function longOptions(command: Command): string[] {
  return command.options.flatMap((option) => (option.long && !option.hidden ? [option.long] : []));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The page of a command: `docs/cli/<top-level command>.md`. */
function pageOf(name: string): string {
  return `${name.split(' ')[0]}.md`;
}

function readPage(page: string): string | undefined {
  const path = join(CLI_DOCS, page);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/**
 * The section of `intercode <name>` in a page: from the heading that names it in backticks to the next
 * heading of the same or a higher level (so a command's section holds its subcommands' sections).
 */
function sectionOf(markdown: string, name: string): string | undefined {
  const lines = markdown.split('\n');
  const names = new RegExp(`\`intercode ${escapeRegExp(name)}(?=[\\s\`])`);
  const start = lines.findIndex((line) => /^#{1,6}\s/.test(line) && names.test(line));
  if (start === -1) return undefined;
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex(
    (line, index) => index > start && /^#{1,6}\s/.test(line) && /^#+/.exec(line)![0].length <= level,
  );
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

function mentions(text: string, option: string): boolean {
  return new RegExp(`(?<![\\w-])${escapeRegExp(option)}(?![\\w-])`).test(text);
}

const program = await createProgram();
const commands = commandsOf(program);

describe('the CLI reference (docs/cli)', () => {
  it('walks the real command tree, subcommands included', () => {
    const names = commands.map((entry) => entry.name);
    expect(names).toEqual(expect.arrayContaining(['run', 'exec', 'image build', 'datasets pull']));
    expect(longOptions(commands.find((entry) => entry.name === 'run')!.command)).toContain('--db-url');
  });

  it.each(commands.map((entry) => [entry.name, entry] as const))(
    'documents `intercode %s` and each of its options',
    (name, entry) => {
      const page = pageOf(name);
      const markdown = readPage(page);
      expect(markdown, `intercode ${name}: docs/cli/${page} does not exist`).toBeDefined();
      const section = sectionOf(markdown!, name);
      expect(
        section,
        `intercode ${name}: no heading naming \`intercode ${name}\` in docs/cli/${page}`,
      ).toBeDefined();
      const missing = longOptions(entry.command)
        .filter((option) => !mentions(section!, option))
        .map(
          (option) =>
            `intercode ${name}: option ${option} is not mentioned in its section of docs/cli/${page}`,
        );
      expect(missing).toEqual([]);
    },
  );

  it('lists every command in the index and documents the options of intercode itself', () => {
    const index = readPage(INDEX) ?? '';
    const problems = [
      ...program.commands
        .filter((command) => !index.includes(`](${command.name()}.md)`))
        .map(
          (command) => `intercode ${command.name()}: no link to ${command.name()}.md in docs/cli/${INDEX}`,
        ),
      ...longOptions(program)
        .filter((option) => !mentions(index, option))
        .map((option) => `intercode: option ${option} is not mentioned in docs/cli/${INDEX}`),
    ];
    expect(problems).toEqual([]);
  });

  it('documents no command or option that does not exist', () => {
    const topLevel = new Set(program.commands.map((command) => `${command.name()}.md`));
    const problems = readdirSync(CLI_DOCS)
      .filter((page) => page.endsWith('.md') && page !== INDEX && !topLevel.has(page))
      .map((page) => `docs/cli/${page}: no such command`);
    for (const entry of commands) {
      const section = sectionOf(readPage(pageOf(entry.name)) ?? '', entry.name) ?? '';
      const known = new Set(
        [entry.command, ...commandsOf(entry.command).map((sub) => sub.command)].flatMap(longOptions),
      );
      // Rows of option tables: `| `--name <value>` | …`.
      for (const match of section.matchAll(/^\|\s*`(--[\w-]+)/gm)) {
        if (!known.has(match[1]!))
          problems.push(
            `intercode ${entry.name}: docs/cli/${pageOf(entry.name)} lists ${match[1]}, which it does not have`,
          );
      }
    }
    expect(problems).toEqual([]);
  });
});
