//! The analysis board's view of one position (`POST /api/analysis/position`): who is to move,
//! which sub-move of the turn, check, how the game ends here, and every legal sub-move with
//! its SAN and the position after it. The browser has no rules engine: with this list it plays
//! sub-moves for both sides, a turn in progress included (the second sub-move, none after a
//! check, the first turn a single sub-move, en passant across sub-moves), by the server's rules.
//!
//! Pure: no engine, no I/O; one legal-move generation per sub-move (the position after it is
//! written as its FEN, whose check field needs its attackers only).

use serde::Serialize;

use crate::rules::{Position, Rules};
use crate::server::play::protocol::{PhaseName, Side, reason_name};

/// A position as the board shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositionView {
    /// The canonical extended FEN (a FEN the request wrote otherwise comes back canonical).
    pub fen: String,
    pub side: Side,
    pub phase: PhaseName,
    pub check: bool,
    /// How the game ends on this position alone (`checkmate`, `stalemate`,
    /// `second_move_stalemate`, `insufficient_material`, `seventy_five_move_rule`), if it does.
    /// Repetitions need a history a FEN does not have.
    pub end: Option<String>,
    /// Every legal sub-move of the side to move, in the generator's order (none when `end`).
    pub moves: Vec<MoveView>,
}

/// One legal sub-move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveView {
    pub uci: String,
    pub san: String,
    /// The position after it.
    pub fen: String,
}

/// Why a FEN was refused: the reader's words, which name the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadFen(pub String);

/// Reads an extended FEN under the Marseillais rules.
pub fn read_fen(text: &str) -> Result<Position, BadFen> {
    let text = text.trim();
    if text.is_empty() {
        return Err(BadFen("the FEN is empty".to_string()));
    }
    Position::from_fen(text, Rules::Marseillais).map_err(|error| BadFen(error.to_string()))
}

/// The board's view of `position`.
pub fn view(position: &Position) -> PositionView {
    let end = position.board_outcome();
    let moves = if end.is_some() {
        Vec::new()
    } else {
        position
            .legal_submoves()
            .into_iter()
            .map(|mv| MoveView {
                uci: mv.to_string(),
                san: position.san(mv),
                fen: position.play_unchecked(mv).fen(),
            })
            .collect()
    };
    PositionView {
        fen: position.fen(),
        side: Side::from(position.side_to_move()),
        phase: PhaseName::from(position.phase()),
        check: position.is_check(),
        end: end.map(|outcome| reason_name(outcome.reason())),
        moves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(fen: &str) -> PositionView {
        view(&read_fen(fen).unwrap())
    }

    #[test]
    fn the_first_turn_is_a_single_sub_move_with_twenty_choices() {
        let v = view(&Position::initial());
        assert_eq!(v.phase, PhaseName::Single);
        assert_eq!(v.side, Side::White);
        assert_eq!(v.moves.len(), 20);
        let e4 = v.moves.iter().find(|m| m.uci == "e2e4").unwrap();
        assert_eq!(e4.san, "e4");
        let after = read_fen(&e4.fen).unwrap();
        assert_eq!(
            Side::from(after.side_to_move()),
            Side::Black,
            "a single sub-move ends the turn"
        );
        assert_eq!(PhaseName::from(after.phase()), PhaseName::First);
    }

    #[test]
    fn a_quiet_first_sub_move_leaves_the_second_to_the_same_side() {
        let v = at("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(v.phase, PhaseName::First);
        let e5 = v.moves.iter().find(|m| m.san == "e5").unwrap();
        let second = at(&e5.fen);
        assert_eq!(second.side, Side::Black);
        assert_eq!(second.phase, PhaseName::Second);
        assert!(!second.moves.is_empty());
    }

    #[test]
    fn a_checkmated_side_has_no_moves_and_the_end_is_named() {
        // Fool's mate, Marseillais style: the queen's check ends the turn and mates.
        let v = at("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        assert!(v.check);
        assert_eq!(v.end.as_deref(), Some("checkmate"));
        assert!(v.moves.is_empty());
    }

    #[test]
    fn a_bad_fen_is_refused_with_the_field_named() {
        let error = read_fen("rnbqkbnr/pppppppp/8/8 w KQkq - 0 1").unwrap_err();
        assert!(error.0.contains("placement"), "{error}");
        assert!(read_fen("  ").is_err());
    }
}
