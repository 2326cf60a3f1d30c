/**
 * What the top-level help shows of each subcommand, in its order: the term (name, `[options]`,
 * arguments) and the description, as the subcommand's own module registers them. The top-level help
 * and `--version` need nothing more, so they load no subcommand (all of them took about a second).
 * `test/cli/command-summaries.test.ts` compares the help built from these with the help of the loaded
 * commands, so the two cannot drift apart.
 */
export const COMMAND_SUMMARIES: ReadonlyArray<{ readonly term: string; readonly description: string }> = [
  {
    term: 'run [options] <dataset>',
    description: 'play a dataset with an agent and write episodes.jsonl and summary.json',
  },
  {
    term: 'play [options] <dataset>',
    description: 'play one episode yourself at the terminal; the reward and its parts are shown at the end',
  },
  {
    term: 'report [options] <run-dir...>',
    description:
      "metrics of run directories (success, first-turn success, turns, error %, tokens, cost) overall and per group, beside the paper's figures for the same setting",
  },
  {
    term: 'export [options] <run-dir>',
    description:
      'write the episodes of a run directory in an interchange format: atif (Agent Trajectory Interchange Format v1.7, one trajectory per episode, JSON Lines)',
  },
  {
    term: 'view [options] <run-dir...>',
    description:
      'serve a local web page showing run directories side by side: figures, plots, episodes and their turns (read-only; updates while a run writes)',
  },
  {
    term: 'exec [options] <command...>',
    description: 'run one command in a fresh sandbox, print its output, exit with its exit code',
  },
  {
    term: 'doctor [options]',
    description: 'what this machine can run, and the command that fixes each missing piece',
  },
  {
    term: 'bench [options]',
    description: 'measure sandbox performance (p50/p95) and check it against the targets',
  },
  { term: 'datasets', description: 'what datasets exist, and which are cached' },
  { term: 'image', description: 'Debian sandbox images (built with mmdebstrap from declared package lists)' },
  {
    term: 'serve [options]',
    description:
      'serve the environments over the OpenEnv protocol (WebSocket /ws, HTTP) with our /intercode/ extensions',
  },
  {
    term: 'mcp [options] <dataset>',
    description:
      'serve episodes of a dataset as MCP tools over stdio (execute, submit, reset; the task as a resource), recorded as a run',
  },
  {
    term: 'worker [options]',
    description:
      'take episodes of distributed runs (`intercode run --redis`) from a Redis queue and play them',
  },
];

/** The subcommand's name: the first word of its term. */
export function summaryName(summary: { readonly term: string }): string {
  return summary.term.split(' ')[0]!;
}
