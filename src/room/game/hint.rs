//! The hint in practice rooms: the engine's move for the current throw, logged once per throw.

use super::{Game, Stage};
use crate::ai;
use crate::engine::Side;
use crate::protocol::{Event, Mode};
use crate::room::error::Refusal;

impl Game {
    /// The `hinted` event with the engine's move for the current throw: in practice rooms only,
    /// for the side to move after its throw. The move is the one the analysis of a finished game
    /// calls best ([`ai::odds`], ties to the lowest square): the installed tablebase's exact
    /// best move where it covers the position, else the network's search [`ai::ANALYSIS_DEPTH`]
    /// throws deep with the table's values at the leaves; well under a millisecond either way
    /// (docs/AI.md, "Hints"), so it is searched right here rather than on the blocking pool. It
    /// sees the position and the throw, nothing of the seed. `None` when this throw's hint was
    /// already shown (asking again logs nothing), or when there is no move to show (never seen:
    /// a throw without a legal move passes in the same decision).
    pub(super) fn decide_hint(&self, side: Side) -> Result<Option<Event>, Refusal> {
        if self.room.mode == Mode::Online {
            return Err(Refusal::HintNotAllowed);
        }
        self.check_turn(side)?;
        let Stage::Move { sticks } = self.stage else {
            return Err(Refusal::MustRoll);
        };
        if self.hint.is_some() {
            return Ok(None);
        }
        let best = ai::odds(&self.position, sticks.roll()).best();
        Ok(best.map(|(mv, _)| Event::Hinted {
            side,
            n: self.throws - 1,
            from: mv.from,
        }))
    }
}
