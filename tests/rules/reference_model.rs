//! Random Marseillais games replayed against the reference model of the
//! rules (`tests/reference`), sub-move by sub-move.
//!
//! The reference keeps the turn state its own way (side, phase, en-passant
//! rights per rules 2.1-2.4, counters) on top of cozy-chess's orthodox board,
//! so no line of the engine's move generator or turn logic is reused. At every
//! step the engine must offer exactly the reference's legal sub-moves, reach
//! the same FEN, and end the game exactly when the reference says.
//!
//! The games are bounded (a fixed number of games, each at most
//! `MAX_SUBMOVES` sub-moves) and seeded, so a failure replays identically.

use crate::reference;

use std::collections::BTreeSet;
use std::str::FromStr;

use cozy_chess::Piece;
use marseillais::rules::{Outcome, Phase, Position, SubMove, Termination};

const MAX_SUBMOVES: usize = 160;
const GAMES_PER_START: u64 = 12;

/// Start positions: the real start, the 1925 start (two sub-moves first),
/// and pawn-rich positions where double steps meet enemy pawns on both wings.
const STARTS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1",
    "r3k2r/p1p1p1p1/8/1P1P1P1P/p1p1p1p1/8/1P1P1P1P/R3K2R w KQkq - 0 5",
    "r3k2r/1p1p1p1p/8/P1P1P1P1/1p1p1p1p/8/P1P1P1P1/R3K2R b KQkq - 0 5",
    "4k3/1pp1pp2/8/2P1P3/1p1p1p2/8/2P1P1P1/4K3 w - - 0 20",
];

/// A small deterministic generator (xorshift64*), seeded per game.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Prefers en passant and double steps so that the rules of section 2 are
/// exercised often; otherwise any legal sub-move.
fn choose(rng: &mut Rng, position: &Position, legal: &[SubMove]) -> SubMove {
    let en_passant: Vec<SubMove> = legal
        .iter()
        .copied()
        .filter(|m| position.is_en_passant(*m))
        .collect();
    if !en_passant.is_empty() && rng.below(4) != 0 {
        return en_passant[rng.below(en_passant.len())];
    }
    let double_steps: Vec<SubMove> = legal
        .iter()
        .copied()
        .filter(|m| {
            position.board().pieces(Piece::Pawn).has(m.from)
                && (m.from.rank() as i8 - m.to.rank() as i8).abs() == 2
        })
        .collect();
    if !double_steps.is_empty() && rng.below(3) == 0 {
        return double_steps[rng.below(double_steps.len())];
    }
    legal[rng.below(legal.len())]
}

#[test]
fn random_games_match_the_reference_sub_move_by_sub_move() {
    let mut en_passant_played = 0;
    let mut second_submove_en_passant = 0;
    let mut checks_ending_turns = 0;
    let mut endings = 0;
    for (index, start_fen) in STARTS.iter().enumerate() {
        for game in 0..GAMES_PER_START {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (index as u64 * 1_000 + game + 1));
            let mut position: Position = start_fen.parse().unwrap_or_else(|e| panic!("{e}"));
            let mut model = reference::State::from_fen(&position.fen(), false);
            let mut history = Vec::new();
            for _ in 0..MAX_SUBMOVES {
                let where_ = format!("{start_fen} after {history:?}");
                assert_eq!(position.fen(), model.fen(), "FEN differs: {where_}");
                let reread = Position::from_str(&position.fen());
                assert_eq!(reread.as_ref(), Ok(&position), "FEN reads back: {where_}");
                let legal = position.legal_submoves();
                let ours: BTreeSet<String> = legal.iter().map(|m| m.to_string()).collect();
                assert_eq!(ours, model.legal_ucis(), "legal sub-moves differ: {where_}");
                if legal.is_empty() {
                    let expected = match (model.on_second_submove(), position.is_check()) {
                        (true, _) => Termination::SecondMoveStalemate,
                        (false, true) => Termination::Checkmate,
                        (false, false) => Termination::Stalemate,
                    };
                    let outcome = position.board_outcome().map(Outcome::reason);
                    assert_eq!(outcome, Some(expected), "{where_}");
                    endings += 1;
                    break;
                }
                if !model.on_second_submove() {
                    let draw = if model.insufficient_material() {
                        Some(Termination::InsufficientMaterial)
                    } else if model.halfmove() >= 150 {
                        Some(Termination::SeventyFiveMoveRule)
                    } else {
                        None
                    };
                    let outcome = position.board_outcome().map(Outcome::reason);
                    assert_eq!(outcome, draw, "{where_}");
                    if draw.is_some() {
                        endings += 1;
                        break;
                    }
                } else {
                    assert_eq!(position.board_outcome(), None, "{where_}");
                }
                let mv = choose(&mut rng, &position, &legal);
                if position.is_en_passant(mv) {
                    en_passant_played += 1;
                    if position.phase() == Phase::Second {
                        second_submove_en_passant += 1;
                    }
                }
                let was_first = position.phase() == Phase::First;
                let text = mv.to_string();
                position = position
                    .play(mv)
                    .unwrap_or_else(|e| panic!("{text}: {e} at {where_}"));
                model = model.play(&text);
                if was_first && position.phase() != Phase::Second {
                    checks_ending_turns += 1;
                }
                history.push(text);
            }
        }
    }
    // The games must actually have exercised the rules they check.
    assert!(
        en_passant_played >= 20,
        "only {en_passant_played} e.p. captures"
    );
    assert!(
        second_submove_en_passant >= 3,
        "only {second_submove_en_passant} e.p. on S2"
    );
    assert!(
        checks_ending_turns >= 10,
        "only {checks_ending_turns} checks on S1"
    );
    assert!(endings >= 1, "no game ended on the board");
}
