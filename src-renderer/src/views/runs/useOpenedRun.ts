import { useCallback, useLayoutEffect, useRef } from 'react';

/**
 * A run that was opened (its row clicked or entered, a link or Back that names it) takes the view
 * and the focus once its detail has loaded: the detail at the top of the window, the focus on its
 * heading, as every action in Compare moves view and focus to what it opened (issue 38, item 4).
 * The newest run, shown while none is picked, was not opened: the list stays in view.
 *
 * `requested` is the run the URL names (null: none picked); `shownId` the run whose detail is
 * rendered. `open` is for a row clicked whose run is already shown: the URL does not change then.
 */
export function useOpenedRun(requested: string | null, shownId: string | undefined) {
  const detailRef = useRef<HTMLElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  // Waits for its detail: scrolled before, the page below the heading is too short to lift it.
  const pending = useRef<string | null>(null);
  // Where the focus was when the run was asked for. Focus the user moved while the run loaded
  // (into the runs search, say) is theirs: the run does not take it, nor scroll it out of view.
  const focusAtRequest = useRef<Element | null>(null);
  // The run shown at the last commit, for `open` (events come after a commit) and for the URL's
  // effect, which runs first so that it compares with the run shown before this commit.
  const shown = useRef(shownId);

  const bringIntoView = useCallback(() => {
    headingRef.current?.focus({ preventScroll: true });
    detailRef.current?.scrollIntoView({ block: 'start' });
  }, []);

  useLayoutEffect(() => {
    // The run already shown (the newest, now picked by its row) was brought by `open`.
    pending.current = requested === shown.current ? null : requested;
    focusAtRequest.current = document.activeElement;
  }, [requested]);

  useLayoutEffect(() => {
    shown.current = shownId;
  }, [shownId]);

  // Before paint, in the commit that shows the run: nothing of it can take a click or the focus
  // first, only to lose it a frame later.
  useLayoutEffect(() => {
    if (shownId === undefined || pending.current !== shownId) return;
    pending.current = null;
    const focused = document.activeElement;
    if (focused !== focusAtRequest.current && focused !== document.body && focused !== null) return;
    bringIntoView();
  }, [shownId, bringIntoView]);

  const open = useCallback(
    (runId: string) => {
      if (runId === shown.current) bringIntoView();
    },
    [bringIntoView],
  );

  return { detailRef, headingRef, open };
}
