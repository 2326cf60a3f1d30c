import type { DatasetLocation } from '../datasets/resolve-dataset.js';

/** What a run's setup is worth knowing before it starts, as one-line notices (none: nothing to say). */
export function setupNotices(
  location: Pick<DatasetLocation, 'id' | 'registered'>,
  sandbox: { readonly imageNamed: boolean; readonly image: string },
): string[] {
  const notices: string[] = [];
  // NL2Bash's tasks read the image's files: on `host` that is this machine's /usr (fs1/55's gold
  // reads all of it), so outputs and times depend on the machine.
  if (
    location.registered &&
    location.id.startsWith('nl2bash') &&
    sandbox.image === 'host' &&
    !sandbox.imageNamed
  ) {
    notices.push(
      `${location.id} runs on the host image: its tasks see this machine's /usr (fs1/55 reads all of it), so outputs and times differ from machine to machine; --image debian (after \`intercode image build bash\`) gives the same Debian root everywhere, --image host keeps this one without this notice`,
    );
  }
  return notices;
}
