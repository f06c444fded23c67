//! Why a step was right or wrong: one typed reason per explanation the page shows. The wire name
//! (snake_case) is also the i18n key's last part: `learn.reason.<name>` in `client/i18n/*.json`.

use serde::Serialize;

/// An explanation of a verdict. The right ones say which rule the learner just used; the wrong
/// ones say which rule or idea the try missed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    // Right: the rule or idea the turn used.
    /// Two sub-moves, two captures.
    TwoCaptures,
    /// White's first turn of the game is a single sub-move.
    FirstTurnOneMove,
    /// From Black's first turn on, every turn is two sub-moves.
    TwoMovesEachTurn,
    /// A check on the first sub-move ends the turn at once.
    CheckEndsTurn,
    /// A quiet first sub-move keeps the second; the check comes last.
    QuietThenCheck,
    /// In check, the first sub-move must answer it; the second is free again.
    OutOfCheckFirst,
    /// Two en-passant captures in one turn, in either order.
    EnPassantEitherOrder,
    /// Castling never passes over an attacked square.
    CastleNotThroughCheck,
    /// The king may not stand in check even between the two sub-moves.
    KingNeverInCheck,
    /// No second sub-move after a quiet first: a draw that saves a lost game.
    StalemateSaves,
    /// The first sub-move left a second one to play.
    AvoidedStalemate,
    /// With two captures to make, the one that gives check comes last.
    CheckingCaptureLast,
    /// No turn of the opponent mates any more.
    ThreatGuarded,
    /// Only their king is left and your pawns are safe: a won ending.
    TradedIntoWonEnding,

    // Wrong: what the try missed.
    /// A piece the goal named is still on the board.
    MissedCapture,
    /// The pieces are not where the goal asked for.
    NotReached,
    /// The first sub-move did not give check.
    NoCheckFirst,
    /// A check on the first sub-move ended the turn before the goal was reached.
    CheckEndedTurn,
    /// The second sub-move did not give check.
    NoCheckSecond,
    /// A first sub-move that is not an en-passant capture ends every en-passant right.
    RightsLapsed,
    /// The first en-passant capture was not the one the goal asked for.
    WrongOrder,
    /// The second sub-move did not take the other pawn en passant.
    MissedSecondEnPassant,
    /// The turn ended without castling.
    NotCastled,
    /// The first sub-move left no second: the game ended in a draw.
    Stalemated,
    /// The game goes on: no stalemate after the first sub-move.
    GameGoesOn,
    /// The opponent still has a turn that checkmates.
    MateThreatLeft,
    /// The opponent still has pieces besides its king.
    TheyKeepPieces,
    /// The opponent can take one of your pawns in its turn.
    PawnLost,
}

impl Reason {
    /// The wire name (the i18n key's last part).
    pub fn key(self) -> &'static str {
        match self {
            Reason::TwoCaptures => "two_captures",
            Reason::FirstTurnOneMove => "first_turn_one_move",
            Reason::TwoMovesEachTurn => "two_moves_each_turn",
            Reason::CheckEndsTurn => "check_ends_turn",
            Reason::QuietThenCheck => "quiet_then_check",
            Reason::OutOfCheckFirst => "out_of_check_first",
            Reason::EnPassantEitherOrder => "en_passant_either_order",
            Reason::CastleNotThroughCheck => "castle_not_through_check",
            Reason::KingNeverInCheck => "king_never_in_check",
            Reason::StalemateSaves => "stalemate_saves",
            Reason::AvoidedStalemate => "avoided_stalemate",
            Reason::CheckingCaptureLast => "checking_capture_last",
            Reason::ThreatGuarded => "threat_guarded",
            Reason::TradedIntoWonEnding => "traded_into_won_ending",
            Reason::MissedCapture => "missed_capture",
            Reason::NotReached => "not_reached",
            Reason::NoCheckFirst => "no_check_first",
            Reason::CheckEndedTurn => "check_ended_turn",
            Reason::NoCheckSecond => "no_check_second",
            Reason::RightsLapsed => "rights_lapsed",
            Reason::WrongOrder => "wrong_order",
            Reason::MissedSecondEnPassant => "missed_second_en_passant",
            Reason::NotCastled => "not_castled",
            Reason::Stalemated => "stalemated",
            Reason::GameGoesOn => "game_goes_on",
            Reason::MateThreatLeft => "mate_threat_left",
            Reason::TheyKeepPieces => "they_keep_pieces",
            Reason::PawnLost => "pawn_lost",
        }
    }

    /// Every reason, for the test that each has its i18n key.
    pub const ALL: [Reason; 28] = [
        Reason::TwoCaptures,
        Reason::FirstTurnOneMove,
        Reason::TwoMovesEachTurn,
        Reason::CheckEndsTurn,
        Reason::QuietThenCheck,
        Reason::OutOfCheckFirst,
        Reason::EnPassantEitherOrder,
        Reason::CastleNotThroughCheck,
        Reason::KingNeverInCheck,
        Reason::StalemateSaves,
        Reason::AvoidedStalemate,
        Reason::CheckingCaptureLast,
        Reason::ThreatGuarded,
        Reason::TradedIntoWonEnding,
        Reason::MissedCapture,
        Reason::NotReached,
        Reason::NoCheckFirst,
        Reason::CheckEndedTurn,
        Reason::NoCheckSecond,
        Reason::RightsLapsed,
        Reason::WrongOrder,
        Reason::MissedSecondEnPassant,
        Reason::NotCastled,
        Reason::Stalemated,
        Reason::GameGoesOn,
        Reason::MateThreatLeft,
        Reason::TheyKeepPieces,
        Reason::PawnLost,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_s_key_is_its_wire_name() {
        for reason in Reason::ALL {
            let wire = serde_json::to_value(reason).unwrap();
            assert_eq!(wire, serde_json::json!(reason.key()));
        }
    }
}
