//! Which finished games the opening explorer counts, and what it counts of each: the
//! turn-start positions of the game's first [`MAX_TURNS`] turns, each with the turn played
//! from it. Pure (the rules core only); the commit that ends a game calls
//! [`counted_game`], whose answer the store adds up in that commit's transaction.
//!
//! A game counts when it started from the standard position (either variant: White's first
//! turn one sub-move or two), both seats were people (no computer seat; anonymous seats
//! count), and it ended with a result: not aborted, not unterminated.
//!
//! The key of a position is the rules' repetition key ([`Position::repetition_key`]): a
//! Zobrist hash of placement, side to move, castling rights, the turn's phase and the
//! en-passant captures actually available, whose tables are generated at compile time from a
//! fixed seed (`rules/zobrist.rs`), so it is the same in every build and may be stored. Two
//! move orders reaching one position share its key (transpositions meet); a target no pawn can
//! take does not make a new position. Stored as the same 64 bits read as a signed integer.

use crate::rules::{Color, Game, Outcome, Position, Rules, SubMove, Termination};
use crate::server::game::speed::Speed;
use crate::server::game::{After, Checked, Event, GameState};
use crate::server::store::{ClockFamily, ExplorerGame, ExplorerResult, ExplorerSeat, ExplorerTurn};

/// Turns counted per game (both sides' turns: 15 of White's and 15 of Black's, up to 60
/// sub-moves). An opening is decided well before; beyond, nearly every position is a game's
/// own and would only grow the tables (each counted turn is a row per game at worst) without
/// ever being asked for twice.
pub const MAX_TURNS: usize = 30;

/// The extended FEN of the Marseillais variant's start (White plays two sub-moves at once).
const MARSEILLAIS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1";

/// The stored key of a position (see the module comment).
pub fn position_key(position: &Position) -> i64 {
    position.repetition_key() as i64
}

/// Whether a game from `start` may count: the standard position, in either variant.
pub fn standard_start(start: &Position) -> bool {
    *start == Position::initial()
        || Position::from_fen(MARSEILLAIS_START, Rules::Marseillais).is_ok_and(|p| p == *start)
}

/// The turn as stored: its sub-moves in UCI, space separated.
pub fn turn_text(turn: &[SubMove]) -> String {
    turn.iter()
        .map(|mv| mv.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first [`MAX_TURNS`] complete turns of a game from `start` played as `submoves`, each
/// with the key of the position it was played from; a position visited again (a repetition)
/// counts at its first visit only, so that one game counts once per position. A last turn
/// left unfinished (a resignation after its first sub-move) is no turn. Stops at the first
/// sub-move the rules refuse (none, for a stored game).
pub fn turns_of(start: &Position, submoves: &[SubMove]) -> Vec<ExplorerTurn> {
    let mut game = Game::new(*start);
    let mut turns = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut from = position_key(start);
    let mut current: Vec<SubMove> = Vec::with_capacity(2);
    let mut complete = 0;
    for &mv in submoves {
        if complete == MAX_TURNS {
            break;
        }
        let Ok(preview) = game.preview(mv) else {
            break;
        };
        let ends_turn = preview.ends_turn();
        if game.play_previewed(preview).is_err() {
            break;
        }
        current.push(mv);
        if ends_turn {
            if seen.insert(from) {
                turns.push(ExplorerTurn {
                    key: from,
                    turn: turn_text(&current),
                });
            }
            complete += 1;
            current.clear();
            from = position_key(game.position());
        }
    }
    turns
}

/// A finished game as the rules of counting see it, whatever it was read from.
#[derive(Clone, Debug)]
pub struct FinishedGame<'a> {
    pub id: &'a str,
    pub start: &'a Position,
    pub submoves: &'a [SubMove],
    pub outcome: Outcome,
    pub against_computer: bool,
    /// `None`: untimed.
    pub speed: Option<Speed>,
    pub rated: bool,
    pub white: ExplorerSeat,
    pub black: ExplorerSeat,
    pub ended_ms: i64,
}

/// What the explorer counts of a finished game, or `None` if it does not count (see the
/// module comment).
pub fn counted(game: FinishedGame<'_>) -> Option<ExplorerGame> {
    let reason = game.outcome.reason();
    if game.against_computer
        || matches!(reason, Termination::Aborted | Termination::Unterminated)
        || !standard_start(game.start)
    {
        return None;
    }
    let result = match game.outcome.winner() {
        Some(Color::White) => ExplorerResult::WhiteWins,
        Some(Color::Black) => ExplorerResult::BlackWins,
        None => ExplorerResult::Draw,
    };
    Some(ExplorerGame {
        game_id: game.id.to_owned(),
        family: game.speed.map_or(ClockFamily::Untimed, ClockFamily::Timed),
        rated: game.rated,
        result,
        white: game.white,
        black: game.black,
        ended_ms: game.ended_ms,
        turns: turns_of(game.start, game.submoves),
    })
}

/// What the commit of `pending` (decided against `state`, leaving it as `after`) counts: set
/// only on the commit that ends the game. The sub-moves are the state's and the pending
/// moves (the last sub-move of a checkmate is in the ending commit itself).
pub fn counted_game(
    state: &GameState,
    after: &After<'_>,
    pending: &[Checked],
) -> Option<ExplorerGame> {
    let outcome = after.outcome.filter(|_| after.ends_now)?;
    let mut submoves = state.game().submoves();
    for checked in pending {
        match checked.event() {
            Event::Move { mv, .. } => submoves.push(*mv),
            Event::Takeback { .. } => {
                submoves.pop();
            }
            _ => {}
        }
    }
    let seat = |color: Color| {
        let user = after.users[color as usize];
        ExplorerSeat {
            name: user.map(|u| u.name.as_str().to_owned()),
            rating: user.and_then(|u| u.rating).map(|r| r.rating),
        }
    };
    counted(FinishedGame {
        id: &state.id,
        start: state.game().start(),
        submoves: &submoves,
        outcome,
        against_computer: after.computer.is_some(),
        speed: state.time_control().map(Speed::of),
        rated: state.rated,
        white: seat(Color::White),
        black: seat(Color::Black),
        ended_ms: after.updated_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(uci: &[&str]) -> Vec<SubMove> {
        uci.iter().map(|m| m.parse().expect("uci")).collect()
    }

    fn anonymous() -> ExplorerSeat {
        ExplorerSeat {
            name: None,
            rating: None,
        }
    }

    fn finished<'a>(start: &'a Position, submoves: &'a [SubMove]) -> FinishedGame<'a> {
        FinishedGame {
            id: "g1",
            start,
            submoves,
            outcome: Outcome::Win {
                winner: Color::White,
                reason: Termination::Resignation,
            },
            against_computer: false,
            speed: Some(Speed::Blitz),
            rated: false,
            white: anonymous(),
            black: anonymous(),
            ended_ms: 1,
        }
    }

    #[test]
    fn the_first_turn_is_one_sub_move_and_the_next_are_two() {
        let start = Position::initial();
        let played = moves(&["e2e4", "e7e5", "g8f6", "d2d4", "g1f3"]);
        let turns = turns_of(&start, &played);
        let texts: Vec<&str> = turns.iter().map(|t| t.turn.as_str()).collect();
        assert_eq!(texts, ["e2e4", "e7e5 g8f6", "d2d4 g1f3"]);
        assert_eq!(turns[0].key, position_key(&start));
        let after_e4 = start.play(played[0]).expect("legal");
        assert_eq!(turns[1].key, position_key(&after_e4));
    }

    #[test]
    fn a_check_on_the_first_sub_move_ends_the_turn_with_one_sub_move() {
        // 1. e4  1... f5,f4?? 2. Qh5+ (check: the turn ends) 2... g6,gxh5.
        let start = Position::initial();
        let played = moves(&["e2e4", "f7f5", "f5f4", "d1h5", "g7g6", "g6h5"]);
        let turns = turns_of(&start, &played);
        let texts: Vec<&str> = turns.iter().map(|t| t.turn.as_str()).collect();
        assert_eq!(texts, ["e2e4", "f7f5 f5f4", "d1h5", "g7g6 g6h5"]);
    }

    #[test]
    fn an_unfinished_last_turn_is_no_turn() {
        let start = Position::initial();
        let turns = turns_of(&start, &moves(&["e2e4", "e7e5"]));
        assert_eq!(turns.len(), 1, "Black resigned after its first sub-move");
    }

    /// A long game of legal sub-moves chosen by a fixed rule, and its turn starts.
    fn long_game() -> (Vec<SubMove>, Vec<i64>) {
        let mut game = Game::new(Position::initial());
        let mut played = Vec::new();
        let mut starts = Vec::new();
        for i in 0..200usize {
            let legal = game.legal_submoves().to_vec();
            if legal.is_empty() {
                break;
            }
            let mv = legal[(i * 7 + 3) % legal.len()];
            let Ok(preview) = game.preview(mv) else { break };
            if game.position().is_turn_start() {
                starts.push(position_key(game.position()));
            }
            let ends = preview.ends_turn();
            game.play_previewed(preview).expect("played");
            played.push(mv);
            if ends && game.outcome().is_some() {
                break;
            }
        }
        (played, starts)
    }

    #[test]
    fn only_the_first_thirty_turns_count() {
        let (played, starts) = long_game();
        assert!(starts.len() > MAX_TURNS + 5, "the game is long enough");
        let turns = turns_of(&Position::initial(), &played);
        let mut first: Vec<i64> = Vec::new();
        for key in starts.iter().take(MAX_TURNS) {
            if !first.contains(key) {
                first.push(*key);
            }
        }
        let keys: Vec<i64> = turns.iter().map(|t| t.key).collect();
        assert_eq!(keys, first);
    }

    #[test]
    fn a_position_visited_again_counts_at_its_first_visit_only() {
        // 1. Nf3 1... Nf6,Ng8 2. Ng1,Nf3 2... Nf6,Ng8 3. Ng1,Nf3: the position after 1. Nf3
        // is reached again.
        let played = moves(&[
            "g1f3", "g8f6", "f6g8", "f3g1", "g1f3", "g8f6", "f6g8", "f3g1", "g1f3",
        ]);
        let turns = turns_of(&Position::initial(), &played);
        let texts: Vec<&str> = turns.iter().map(|t| t.turn.as_str()).collect();
        assert_eq!(texts, ["g1f3", "g8f6 f6g8", "f3g1 g1f3"]);
    }

    #[test]
    fn a_game_from_a_position_of_its_own_does_not_count() {
        let start: Position = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".parse().expect("fen");
        assert!(counted(finished(&start, &[])).is_none());
        let standard = Position::initial();
        assert!(counted(finished(&standard, &[])).is_some());
        let marseillais = Position::from_fen(MARSEILLAIS_START, Rules::Marseillais).expect("fen");
        assert!(counted(finished(&marseillais, &[])).is_some());
    }

    #[test]
    fn aborted_games_and_games_against_the_computer_do_not_count() {
        let start = Position::initial();
        let aborted = FinishedGame {
            outcome: Outcome::Draw {
                reason: Termination::Aborted,
            },
            ..finished(&start, &[])
        };
        assert!(counted(aborted).is_none());
        let computer = FinishedGame {
            against_computer: true,
            ..finished(&start, &[])
        };
        assert!(counted(computer).is_none());
    }

    #[test]
    fn a_counted_game_has_its_result_family_and_turns() {
        let start = Position::initial();
        let played = moves(&["d2d4", "d7d5", "g8f6"]);
        let game = counted(FinishedGame {
            outcome: Outcome::Draw {
                reason: Termination::Agreement,
            },
            speed: None,
            ..finished(&start, &played)
        })
        .expect("counts");
        assert_eq!(game.result, ExplorerResult::Draw);
        assert_eq!(game.family, ClockFamily::Untimed);
        assert_eq!(game.turns.len(), 2);
    }

    #[test]
    fn the_key_is_the_same_in_every_build() {
        // The Zobrist tables come from a fixed seed: this value may be stored.
        assert_eq!(
            position_key(&Position::initial()),
            Position::initial().repetition_key() as i64
        );
        assert_eq!(position_key(&Position::initial()), INITIAL_KEY);
    }

    /// The stored key of the standard start (checked above: a change of the rules' hashing
    /// would orphan every stored row, and must be a migration).
    const INITIAL_KEY: i64 = -7_353_524_201_854_654_023;
}
