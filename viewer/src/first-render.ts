declare global {
  interface Window {
    /** When the page first showed data, ms since navigation start (the browser tests read it). */
    __intercodeFirstRender?: number;
  }
}

/** Notes when the page first shows data (the runs, or a list's first rows), once the frame is drawn. */
export function markFirstRender(): void {
  if (window.__intercodeFirstRender !== undefined) return;
  requestAnimationFrame(() => {
    window.__intercodeFirstRender ??= performance.now();
  });
}
