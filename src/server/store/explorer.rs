//! What the store keeps for the opening explorer (SQLite schema v10, Postgres v7; issue 31):
//! each counted game once (`explorer_games`, keyed by the game id: what makes the update
//! idempotent), the turns played from each turn-start position summed per clock family and
//! rated/casual (`explorer_turns`), and the newest few games through each position per family
//! and rated/casual (`explorer_examples`). Positions are opaque 64-bit keys here and turns
//! opaque text: the explorer room (`crate::server::explorer`) owns which games count, what a
//! key is and how a turn is written; the store only adds them up.
//!
//! The rows are written by the commit that ends a game ([`super::Commit::explorer`], in its
//! own transaction) or by [`super::Store::add_explorer_games`] (the load generator, a
//! rebuild): both go through the same per-backend function, which does nothing for a game id
//! already stored.

use crate::server::game::speed::Speed;

/// Example games kept per position, clock family and rated/casual: the newest by end time
/// (then id). A query shows at most this many, so keeping more would only grow the table; a
/// filter's newest are always among its buckets' newest.
pub const EXAMPLES_PER_BUCKET: usize = 5;

/// Counted games [`super::Store::add_explorer_games`] writes per transaction, so that a bulk
/// load never holds the writer (which the games' moves share) for long.
pub const EXPLORER_SLICE: usize = 200;

/// A game's clock family: its speed, or no clock at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClockFamily {
    Timed(Speed),
    Untimed,
}

impl ClockFamily {
    pub const ALL: [ClockFamily; 6] = [
        ClockFamily::Timed(Speed::Bullet),
        ClockFamily::Timed(Speed::Blitz),
        ClockFamily::Timed(Speed::Rapid),
        ClockFamily::Timed(Speed::Classical),
        ClockFamily::Timed(Speed::Correspondence),
        ClockFamily::Untimed,
    ];

    /// The text stored and sent: a speed's name, or `untimed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClockFamily::Timed(speed) => speed.as_str(),
            ClockFamily::Untimed => "untimed",
        }
    }

    /// The inverse of [`ClockFamily::as_str`].
    pub fn parse(text: &str) -> Option<ClockFamily> {
        ClockFamily::ALL.into_iter().find(|f| f.as_str() == text)
    }
}

/// How a counted game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExplorerResult {
    WhiteWins,
    Draw,
    BlackWins,
}

impl ExplorerResult {
    /// The integer stored: 1, 0, -1 (White's point of view).
    pub fn as_i64(self) -> i64 {
        match self {
            ExplorerResult::WhiteWins => 1,
            ExplorerResult::Draw => 0,
            ExplorerResult::BlackWins => -1,
        }
    }

    pub fn from_i64(value: i64) -> ExplorerResult {
        match value {
            1.. => ExplorerResult::WhiteWins,
            0 => ExplorerResult::Draw,
            _ => ExplorerResult::BlackWins,
        }
    }

    /// The PGN result.
    pub fn as_str(self) -> &'static str {
        match self {
            ExplorerResult::WhiteWins => "1-0",
            ExplorerResult::Draw => "1/2-1/2",
            ExplorerResult::BlackWins => "0-1",
        }
    }

    /// The (white, draws, black) counts one game adds.
    pub fn counts(self) -> (u64, u64, u64) {
        match self {
            ExplorerResult::WhiteWins => (1, 0, 0),
            ExplorerResult::Draw => (0, 1, 0),
            ExplorerResult::BlackWins => (0, 0, 1),
        }
    }
}

/// A player of a counted game: the account's name and its rating for the game's speed before
/// the game, or neither (an anonymous seat; a rating is also absent in an untimed game).
#[derive(Clone, Debug, PartialEq)]
pub struct ExplorerSeat {
    pub name: Option<String>,
    pub rating: Option<f64>,
}

/// One turn of a counted game: the key of the turn-start position it was played from, and
/// the turn as text (its sub-moves in UCI, space separated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExplorerTurn {
    pub key: i64,
    pub turn: String,
}

/// A finished game as the explorer counts it.
#[derive(Clone, Debug, PartialEq)]
pub struct ExplorerGame {
    pub game_id: String,
    pub family: ClockFamily,
    pub rated: bool,
    pub result: ExplorerResult,
    pub white: ExplorerSeat,
    pub black: ExplorerSeat,
    /// Unix milliseconds.
    pub ended_ms: i64,
    /// At most one per position (the room keeps a position's first visit).
    pub turns: Vec<ExplorerTurn>,
}

impl ExplorerGame {
    /// What one game adds to the rating sums: the ratings of its account players, summed, and
    /// how many there were.
    pub fn rating_sum(&self) -> (f64, u64) {
        [self.white.rating, self.black.rating]
            .into_iter()
            .flatten()
            .fold((0.0, 0), |(sum, n), r| (sum + r, n + 1))
    }
}

/// One row of `explorer_turns`: the games that played `turn` from a position, of one clock
/// family and rated or not.
#[derive(Clone, Debug, PartialEq)]
pub struct ExplorerTurnRow {
    pub turn: String,
    pub family: ClockFamily,
    pub rated: bool,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// The sum of the account players' ratings, and how many ratings it sums.
    pub rating_sum: f64,
    pub rating_count: u64,
}

/// A kept example game of a position.
#[derive(Clone, Debug, PartialEq)]
pub struct ExplorerExample {
    pub game_id: String,
    pub family: ClockFamily,
    pub rated: bool,
    pub result: ExplorerResult,
    pub white: ExplorerSeat,
    pub black: ExplorerSeat,
    pub ended_ms: i64,
}

/// Everything the store holds about one position: every turn row and every kept example, in
/// no particular order (the room filters, sums and sorts).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExplorerPosition {
    pub turns: Vec<ExplorerTurnRow>,
    pub examples: Vec<ExplorerExample>,
}

/// A game's turns in the order the backends lock their rows: by position key, then turn, so
/// that two transactions updating the same rows (two nodes ending games) wait for each other
/// instead of deadlocking.
pub fn lock_order(turns: &[ExplorerTurn]) -> Vec<&ExplorerTurn> {
    let mut sorted: Vec<&ExplorerTurn> = turns.iter().collect();
    sorted.sort_by(|a, b| (a.key, &a.turn).cmp(&(b.key, &b.turn)));
    sorted.dedup_by(|a, b| a.key == b.key);
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_family_reads_back_what_it_writes() {
        for family in ClockFamily::ALL {
            assert_eq!(ClockFamily::parse(family.as_str()), Some(family));
        }
        assert_eq!(ClockFamily::parse("hyperbullet"), None);
    }

    #[test]
    fn a_result_reads_back_what_it_writes() {
        for result in [
            ExplorerResult::WhiteWins,
            ExplorerResult::Draw,
            ExplorerResult::BlackWins,
        ] {
            assert_eq!(ExplorerResult::from_i64(result.as_i64()), result);
        }
    }

    #[test]
    fn the_rating_sum_skips_anonymous_players() {
        let seat = |rating| ExplorerSeat { name: None, rating };
        let game = ExplorerGame {
            game_id: "g".into(),
            family: ClockFamily::Untimed,
            rated: false,
            result: ExplorerResult::Draw,
            white: seat(Some(1600.0)),
            black: seat(None),
            ended_ms: 0,
            turns: vec![],
        };
        assert_eq!(game.rating_sum(), (1600.0, 1));
    }

    #[test]
    fn rows_are_locked_in_key_order_one_per_position() {
        let turn = |key, turn: &str| ExplorerTurn {
            key,
            turn: turn.into(),
        };
        let turns = [turn(5, "a"), turn(-3, "b"), turn(5, "c")];
        let keys: Vec<i64> = lock_order(&turns).iter().map(|t| t.key).collect();
        assert_eq!(keys, [-3, 5]);
    }
}
