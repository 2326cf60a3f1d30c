/** A file change as the Bash scorer lists it: a path and its `git status --short` letters. */
export interface FileChange {
  readonly path: string;
  readonly status: string;
}

/** What a status's letters mean, in words. */
function statusWords(status: string): string {
  const letters = status.trim();
  if (letters === '??' || letters === 'A') return 'added';
  if (letters === 'D') return 'deleted';
  if (letters === 'M') return 'modified';
  return letters || 'changed';
}

/**
 * The agent's file changes against the gold's, as a diff of the two change lists: `+` a change only
 * the agent made, `-` one only the gold made, ` ` the same change on both sides, `~` the same path
 * changed differently.
 */
export function FileDiff(props: { agent: readonly FileChange[]; gold: readonly FileChange[] }) {
  const agent = new Map(props.agent.map((change) => [change.path, change.status]));
  const gold = new Map(props.gold.map((change) => [change.path, change.status]));
  const paths = [...new Set([...agent.keys(), ...gold.keys()])].sort();
  return (
    <div class="file-diff" data-testid="file-diff">
      <h3>File changes: agent against gold</h3>
      {paths.length === 0 ? <p>Neither side changed a file.</p> : null}
      <pre class="diff">
        {paths.map((path) => {
          const mine = agent.get(path);
          const theirs = gold.get(path);
          const [mark, kind, words] =
            mine === undefined
              ? ['-', 'removed', `only the gold: ${statusWords(theirs ?? '')}`]
              : theirs === undefined
                ? ['+', 'added', `only the agent: ${statusWords(mine)}`]
                : mine === theirs
                  ? [' ', 'same', `both: ${statusWords(mine)}`]
                  : ['~', 'changed', `agent ${statusWords(mine)}, gold ${statusWords(theirs)}`];
          return (
            <div key={path} class={`diff-line ${kind}`}>
              {mark} /{path.replace(/^\//, '')} ({words})
            </div>
          );
        })}
      </pre>
    </div>
  );
}
