/**
 * What a person waits for, measured in the page (the browser tests read it): from a click on a
 * session to its tick list on screen, and from a click on a tick to its diff on screen.
 */
export const timings: { list?: number; tick?: number } = {};
(window as unknown as { studioTimings: typeof timings }).studioTimings = timings;

let listStarted: number | undefined;
let tickStarted: number | undefined;

export const measure = {
  listStarts: () => {
    listStarted = performance.now();
  },
  /** After the list's commit; also marks the body for the tests to wait on. */
  listShown: (ticks: number) => {
    if (listStarted !== undefined) timings.list = performance.now() - listStarted;
    listStarted = undefined;
    document.body.dataset.listedTicks = String(ticks);
  },
  tickStarts: () => {
    tickStarted = performance.now();
  },
  tickShown: (tick: number) => {
    if (tickStarted !== undefined) timings.tick = performance.now() - tickStarted;
    tickStarted = undefined;
    document.body.dataset.shownTick = String(tick);
  },
};
