import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import { ioFailure } from './container-files.js';

/** How many times the daemon is asked to pause a container whose freezer did not settle. */
const PAUSE_ATTEMPTS = 4;

/** Freezes every process of the container (`docker pause`, the cgroup freezer). */
export async function pauseContainer(container: Docker.Container): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await container.pause();
      return;
    } catch (error) {
      // runc gives up ("unable to freeze") when the freezer does not settle in time, as with a
      // process that forks fast on a loaded machine, and thaws the container: try again.
      if (attempt >= PAUSE_ATTEMPTS || !/unable to freeze/.test(String(error))) {
        throw ioFailure(error, 'cannot pause the container');
      }
      await sleep(50 * attempt);
    }
  }
}
