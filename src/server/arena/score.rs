//! An arena player's score, pure: lichess's arena scoring, counted in Marseillais turns. A win
//! scores 2, a draw 1, a loss 0. After two wins in a row the player is "on fire": every result
//! scores double until a result that is not a win (that one is doubled too, then the fire is
//! out). A berserked win (the player gave up half their clock before their first move) in a
//! game of at least [`BERSERK_MIN_TURNS`] turns adds 1 (not doubled). A draw in fewer than
//! [`SHORT_DRAW_TURNS`] turns scores 0 and puts the fire out: two players cannot farm points by
//! agreeing draws.
//!
//! Ties in the standings are broken by the performance rating ([`performance`]).

use std::cmp::Ordering;

/// A berserked win counts its bonus point only in a game of at least this many turns.
pub const BERSERK_MIN_TURNS: u32 = 7;
/// A draw in fewer turns than this scores nothing.
pub const SHORT_DRAW_TURNS: u32 = 10;

/// A game's result for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win,
    Draw,
    Loss,
}

/// One finished arena game of one player, as the scoring reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub result: GameResult,
    /// The game's numbered turns (the PGN's turn numbers: White's turn and Black's reply are
    /// one), counted when it ended.
    pub turns: u32,
    /// This player berserked (half their clock, no increment) before their first sub-move.
    pub berserk: bool,
    /// The opponent's rating when the game began (for the performance).
    pub opponent_rating: i32,
}

/// What one game scored, as the standings show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scored {
    pub points: u32,
    /// Scored double: the player was on fire.
    pub doubled: bool,
    /// The berserk point was won.
    pub berserk_bonus: bool,
}

/// Each game's score, in the order played.
pub fn sheet(games: &[Played]) -> Vec<Scored> {
    let mut wins_in_a_row = 0u32;
    games
        .iter()
        .map(|game| {
            let on_fire = wins_in_a_row >= 2;
            let short_draw = game.result == GameResult::Draw && game.turns < SHORT_DRAW_TURNS;
            let base = match game.result {
                GameResult::Win => 2,
                GameResult::Draw if short_draw => 0,
                GameResult::Draw => 1,
                GameResult::Loss => 0,
            };
            let doubled = on_fire && base > 0;
            let berserk_bonus =
                game.result == GameResult::Win && game.berserk && game.turns >= BERSERK_MIN_TURNS;
            wins_in_a_row = match game.result {
                GameResult::Win => wins_in_a_row + 1,
                _ => 0,
            };
            Scored {
                points: base * if doubled { 2 } else { 1 } + u32::from(berserk_bonus),
                doubled,
                berserk_bonus,
            }
        })
        .collect()
}

/// The total of a sheet.
pub fn total(games: &[Played]) -> u32 {
    sheet(games).iter().map(|s| s.points).sum()
}

/// Whether the player is on fire now: their next result scores double.
pub fn on_fire(games: &[Played]) -> bool {
    games.len() >= 2
        && games[games.len() - 2..]
            .iter()
            .all(|g| g.result == GameResult::Win)
}

/// The performance rating over the games played: the opponents' average rating, plus 500 for
/// each win and less 500 for each loss, divided by the games (FIDE's linear approximation, as
/// lichess's arena tie-break). `None` before any game.
pub fn performance(games: &[Played]) -> Option<i32> {
    if games.is_empty() {
        return None;
    }
    let sum: i64 = games
        .iter()
        .map(|g| {
            i64::from(g.opponent_rating)
                + match g.result {
                    GameResult::Win => 500,
                    GameResult::Draw => 0,
                    GameResult::Loss => -500,
                }
        })
        .sum();
    Some((sum / games.len() as i64) as i32)
}

/// The standings' order between two players: more points first, then the better performance
/// (a player with no game after one with games).
pub fn standing_order(a: (u32, Option<i32>), b: (u32, Option<i32>)) -> Ordering {
    b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(result: GameResult, turns: u32) -> Played {
        Played {
            result,
            turns,
            berserk: false,
            opponent_rating: 1500,
        }
    }

    fn points(games: &[Played]) -> Vec<u32> {
        sheet(games).iter().map(|s| s.points).collect()
    }

    use GameResult::{Draw, Loss, Win};

    #[test]
    fn a_win_scores_2_a_draw_1_and_a_loss_0() {
        assert_eq!(
            points(&[game(Win, 20), game(Loss, 20), game(Draw, 20)]),
            [2, 0, 1]
        );
    }

    #[test]
    fn after_two_wins_in_a_row_every_result_scores_double_until_a_non_win() {
        let games = [
            game(Win, 20),
            game(Win, 20),
            game(Win, 20),  // on fire: 4
            game(Win, 20),  // 4
            game(Draw, 20), // doubled draw: 2, and the fire is out
            game(Win, 20),  // 2
            game(Win, 20),  // 2
            game(Loss, 20), // on fire, but a loss is 0
            game(Win, 20),  // 2
        ];
        assert_eq!(points(&games), [2, 2, 4, 4, 2, 2, 2, 0, 2]);
        assert!(!on_fire(&games[..2 - 1]));
        assert!(on_fire(&games[..2]));
        assert!(!on_fire(&games[..5]));
        let marks: Vec<bool> = sheet(&games).iter().map(|s| s.doubled).collect();
        assert_eq!(
            marks,
            [false, false, true, true, true, false, false, false, false]
        );
    }

    #[test]
    fn a_berserked_win_of_at_least_7_turns_adds_one_point_not_doubled() {
        let berserk = |result, turns| Played {
            berserk: true,
            ..game(result, turns)
        };
        assert_eq!(points(&[berserk(Win, 7)]), [3]);
        assert_eq!(points(&[berserk(Win, 6)]), [2], "too short for the bonus");
        assert_eq!(points(&[berserk(Draw, 30)]), [1], "only a win earns it");
        assert_eq!(
            points(&[game(Win, 20), game(Win, 20), berserk(Win, 20)]),
            [2, 2, 5],
            "on fire: 4, plus 1"
        );
    }

    #[test]
    fn a_draw_in_fewer_than_10_turns_scores_nothing_even_on_fire() {
        assert_eq!(points(&[game(Draw, 9)]), [0]);
        assert_eq!(points(&[game(Draw, 10)]), [1]);
        let games = [game(Win, 20), game(Win, 20), game(Draw, 3), game(Win, 20)];
        assert_eq!(points(&games), [2, 2, 0, 2], "and the fire is out");
        assert_eq!(total(&games), 6);
    }

    #[test]
    fn ties_are_broken_by_the_performance_rating() {
        let beat = |rating| Played {
            opponent_rating: rating,
            ..game(Win, 20)
        };
        let lost = |rating| Played {
            opponent_rating: rating,
            ..game(Loss, 20)
        };
        assert_eq!(performance(&[]), None);
        assert_eq!(performance(&[beat(1500)]), Some(2000));
        assert_eq!(performance(&[beat(1500), lost(1700)]), Some(1600));
        let strong = (2, performance(&[beat(2000)]));
        let weak = (2, performance(&[beat(1200)]));
        assert_eq!(
            standing_order(strong, weak),
            Ordering::Less,
            "strong ranks first"
        );
        assert_eq!(
            standing_order((4, Some(1000)), strong),
            Ordering::Less,
            "points first"
        );
        assert_eq!(standing_order((0, Some(1000)), (0, None)), Ordering::Less);
    }
}
