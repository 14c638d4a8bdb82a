// Issue 30, item 11: a page must never show an empty board for a game in progress. Injected into
// every page the tests open, it reports as a console error (which fails the test, see
// fixtures.js) both ways a room page can show one:
// - drawn empty: whenever the board or the state changes, a board with no piece while the room
//   is in play (checked after each batch of DOM changes, so a redraw in progress does not count);
// - never drawn: a room page that still has no state of its room WELCOMED_WITHIN_MS after it
//   opened (its `data-phase` still the page's "loading") and says no problem (a room not found,
//   a server not reached). A page opened mid-game whose hello went unanswered used to sit so.
// Playwright injects the function's source alone: everything it uses is inside it.
export function watchBlankBoard() {
  const WELCOMED_WITHIN_MS = 5_000;
  const check = () => {
    const room = document.querySelector('[data-testid="room"]');
    const board = document.querySelector('[data-testid="board"]');
    if (!room || !board) return;
    const playing = room.dataset.phase === 'roll' || room.dataset.phase === 'move';
    if (playing && board.querySelectorAll('[data-testid="piece"]').length === 0) {
      console.error(`blank board in a game in progress: phase ${room.dataset.phase}, v ${room.dataset.v}, position "${board.dataset.position}"`);
    }
  };
  const checkWelcomed = () => {
    const room = document.querySelector('[data-testid="room"]');
    const problem = document.querySelector('[data-testid="problem"]');
    if (room?.dataset.phase === 'loading' && problem?.hidden !== false) {
      console.error(`room page without its room ${WELCOMED_WITHIN_MS} ms after it opened: connection "${room.dataset.connection}"`);
    }
  };
  document.addEventListener('DOMContentLoaded', () => {
    const room = document.querySelector('[data-testid="room"]');
    if (!room) return;
    new MutationObserver(check).observe(room, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-phase', 'data-v'] });
    setTimeout(checkWelcomed, WELCOMED_WITHIN_MS);
  });
}
