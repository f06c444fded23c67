//! A passed turn: the side to move gives the opponent its turn without playing. It is never a
//! legal move of the game; the engine's null-move search asks "would the opponent's whole turn,
//! played twice in a row, still not bring my score under beta?" and needs the position that
//! question is about, with a hash consistent with every other position's.

use super::position::{Phase, Position, Rules};
use super::{BitBoard, Color, zobrist};

impl Position {
    /// The position after the side to move passes its whole turn, or `None` where a pass
    /// has no meaning: in the middle of a turn, or in check. The opponent's en-passant
    /// targets lapse (as they would after any turn of ours), the opponent moves next at the
    /// start of a full turn, and nothing else changes; the hash is what a FEN of the result
    /// would give.
    pub fn pass_turn(&self) -> Option<Position> {
        if !self.is_turn_start() || self.is_check() {
            return None;
        }
        let mut next = *self;
        next.ep = BitBoard::EMPTY;
        next.side = !self.side;
        next.hash ^= zobrist::side(Color::Black);
        if self.side == Color::Black {
            next.fullmove = next.fullmove.saturating_add(1);
        }
        next.phase = match next.rules {
            Rules::Marseillais => Phase::First,
            Rules::Orthodox => Phase::Single,
        };
        // Nothing moved, and the opponent was not in check on our move.
        next.checkers = BitBoard::EMPTY;
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fen(text: &str) -> Position {
        Position::from_fen(text, Rules::Marseillais).expect(text)
    }

    #[test]
    fn a_passed_turn_gives_the_opponent_a_full_turn_with_a_consistent_hash() {
        // Black to move at a turn start with White's e3 target live.
        let before = fen("rnbqkbnr/pppp1ppp/8/8/3pP3/8/PPP2PPP/RNBQKBNR b KQkq e3 0 3 1");
        let after = before.pass_turn().expect("a turn start, not in check");
        assert_eq!(after.side_to_move(), Color::White);
        assert_eq!(after.phase(), Phase::First);
        assert!(after.ep_targets().is_empty());
        assert_eq!(after.fullmove_number(), before.fullmove_number() + 1);
        assert_eq!(after.incremental_hash(), after.hash_from_scratch());
        let read_back = fen(&after.fen());
        assert_eq!(after.hash(), read_back.hash());
        assert_eq!(after.legal_submoves(), read_back.legal_submoves());
    }

    #[test]
    fn there_is_no_pass_in_check_or_in_the_middle_of_a_turn() {
        let in_check = fen("4k3/8/8/8/8/8/8/R3K2r w - - 0 1 1");
        assert!(in_check.pass_turn().is_none());
        let second = fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 2");
        assert!(second.pass_turn().is_none());
    }
}
