import { describe, expect, it } from 'vitest';
import { type ScriptLayerOptions, scriptLayerStatus } from '../../../src/envs/bash/script-layer.js';

const plain: ScriptLayerOptions = {
  name: 'nl2bash-fs3',
  script: 'mkdir -p /workspace && tar -czf /workspace/archive.tar.gz /etc/hostname\n',
  image: 'host',
  keepEmptyUnder: new Set(['tmp']),
};

describe('scriptLayerStatus', () => {
  it('keeps a pinned layer built with the clock running apart from one built with it pinned', () => {
    const at = Date.UTC(2023, 5, 1, 12);
    const pinned = scriptLayerStatus({ ...plain, pinnedClockMs: at, clockPinned: true });
    const running = scriptLayerStatus({ ...plain, pinnedClockMs: at, clockPinned: false });
    // An image without libfaketime builds with the real clock (its archives hold today's times):
    // once libfaketime is there, the layer is built again, not taken from that cache.
    expect(pinned.key).not.toBe(running.key);
    expect(pinned.base).toMatch(/nl2bash-fs3-pinned-/);
    expect(running.base).toMatch(/nl2bash-fs3-pinned-/);
    // The plain layer does not depend on the clock.
    expect(scriptLayerStatus({ ...plain, clockPinned: false }).key).toBe(scriptLayerStatus(plain).key);
    expect(scriptLayerStatus(plain).key).not.toBe(pinned.key);
  });
});
