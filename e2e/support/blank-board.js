// Issue 30, item 11: a page must never show an empty board for a game in progress. Injected into
// every page the tests open: whenever the room page's board or state changes, a board with no
// piece while the room is in play is reported as a console error, which fails the test (see
// fixtures.js). Checked after each batch of DOM changes, so a redraw in progress does not count.
export function watchBlankBoard() {
  const check = () => {
    const room = document.querySelector('[data-testid="room"]');
    const board = document.querySelector('[data-testid="board"]');
    if (!room || !board) return;
    const playing = room.dataset.phase === 'roll' || room.dataset.phase === 'move';
    if (playing && board.querySelectorAll('[data-testid="piece"]').length === 0) {
      console.error(`blank board in a game in progress: phase ${room.dataset.phase}, v ${room.dataset.v}, position "${board.dataset.position}"`);
    }
  };
  document.addEventListener('DOMContentLoaded', () => {
    const room = document.querySelector('[data-testid="room"]');
    if (room) new MutationObserver(check).observe(room, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-phase', 'data-v'] });
  });
}
