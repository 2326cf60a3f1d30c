/**
 * The keys a price table tries for a model id, most specific first. The rules (documented in
 * docs/agents/cost-and-cache.md):
 *
 * 1. the id as given, lower-cased (`anthropic:claude-3-5-sonnet-20241022`); the provider is the
 *    text before the first `:`;
 * 2. the last segment of a routed name (`openrouter:anthropic/claude-3.5-sonnet` → `claude-3.5-sonnet`);
 * 3. with dots between digits written as dashes (`claude-3.5-sonnet` → `claude-3-5-sonnet`), the
 *    spelling of routers against the providers' own;
 * 4. each of those without a date or `latest` suffix (`-2024-08-06`, `-20241022`, `@20241022`,
 *    `-latest`), so a dated snapshot costs what its family costs unless it has its own entry.
 *
 * Every name of 1–4 is tried with its provider first (`anthropic:claude-3-5-sonnet`), then bare
 * (`claude-3-5-sonnet`, a price for the model under any provider), and last `provider:*`, a price
 * for every model of a provider (a local server that charges nothing).
 *
 * A four-digit suffix (`gpt-4-0613`) is not removed: such snapshots were priced apart from their
 * family, so they need their own entries.
 */
export function priceKeys(modelId: string): readonly string[] {
  const id = modelId.trim().toLowerCase();
  const colon = id.indexOf(':');
  const provider = colon > 0 ? id.slice(0, colon) : undefined;
  const bare = colon > 0 ? id.slice(colon + 1) : id;
  const names: string[] = [];
  const add = (name: string): void => {
    if (name !== '' && !names.includes(name)) names.push(name);
  };
  add(bare);
  const slash = bare.lastIndexOf('/');
  if (slash >= 0) add(bare.slice(slash + 1));
  for (const name of [...names]) add(name.replace(/(?<=\d)\.(?=\d)/g, '-'));
  for (const name of [...names]) add(withoutDate(name));
  const keys = provider === undefined ? [] : names.map((name) => `${provider}:${name}`);
  keys.push(...names);
  if (provider !== undefined) keys.push(`${provider}:*`);
  return keys;
}

const DATE_SUFFIX = /(?:-\d{4}-\d{2}-\d{2}|[-@]\d{8}|-latest)$/;

function withoutDate(name: string): string {
  return name.replace(DATE_SUFFIX, '');
}
