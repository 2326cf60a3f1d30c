import type { DatasetLocation } from '../datasets/resolve-dataset.js';

/** The sandbox setup a run's notices speak of. */
export interface NoticedSandbox {
  /** The image the run uses. */
  readonly image: string;
  /** The run named it (`--image`). */
  readonly imageNamed: boolean;
  /**
   * The dataset's own image, when the run would have used it but it is not built, with the Debian
   * profile `intercode image build` takes for it.
   */
  readonly unbuilt?: { readonly image: string; readonly profile: string };
}

/** What a run's setup is worth knowing before it starts, as one-line notices (none: nothing to say). */
export function setupNotices(location: Pick<DatasetLocation, 'id'>, sandbox: NoticedSandbox): string[] {
  const notices: string[] = [];
  // The dataset's tasks were written for an image this machine has not built: they run on the
  // backend's default. NL2Bash on `host` reads this machine's /usr (fs1/55's gold reads all of it),
  // so outputs and times depend on the machine.
  if (sandbox.unbuilt !== undefined && !sandbox.imageNamed) {
    const host = sandbox.image === 'host';
    notices.push(
      `${location.id} runs on the ${sandbox.image} image: ${sandbox.unbuilt.image}, the image its tasks were written for, is not built${
        host
          ? " (on host its tasks see this machine's /usr, so outputs and times differ from machine to machine)"
          : ''
      }; \`intercode image build ${sandbox.unbuilt.profile}\` (about a minute) builds it and later runs use it; --image ${sandbox.image} keeps this one without this notice`,
    );
  }
  return notices;
}
