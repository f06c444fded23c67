//! The explorer's answer for one position, pure: the store's rows of the position filtered
//! (rated or casual, clock families), summed per turn, sorted by games, each turn written in
//! SAN from the position; the newest example games the filter lets through.

use serde::Serialize;

use crate::rules::{Position, SubMove};
use crate::server::store::{ClockFamily, ExplorerExample, ExplorerPosition};

use super::error::ExplorerError;

/// Example games an answer shows (the store keeps as many per family and rated/casual).
pub const EXAMPLES_SHOWN: usize = crate::server::store::EXPLORER_EXAMPLES_PER_BUCKET;

/// Which of rated and casual games an answer counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RatedFilter {
    All,
    Rated,
    Casual,
}

impl RatedFilter {
    pub fn parse(text: Option<&str>) -> Result<RatedFilter, ExplorerError> {
        match text.unwrap_or("all") {
            "" | "all" => Ok(RatedFilter::All),
            "rated" => Ok(RatedFilter::Rated),
            "casual" => Ok(RatedFilter::Casual),
            other => Err(ExplorerError::BadRated(other.to_owned())),
        }
    }

    fn keeps(self, rated: bool) -> bool {
        match self {
            RatedFilter::All => true,
            RatedFilter::Rated => rated,
            RatedFilter::Casual => !rated,
        }
    }
}

/// What an answer counts: rated/casual and the clock families (empty: all of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    pub rated: RatedFilter,
    pub families: Vec<ClockFamily>,
}

impl Filter {
    /// From the query's `rated` and `speeds` (comma separated; absent or empty: all).
    pub fn parse(rated: Option<&str>, speeds: Option<&str>) -> Result<Filter, ExplorerError> {
        let families = speeds
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| ClockFamily::parse(s).ok_or_else(|| ExplorerError::BadSpeed(s.to_owned())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Filter {
            rated: RatedFilter::parse(rated)?,
            families,
        })
    }

    fn keeps(&self, family: ClockFamily, rated: bool) -> bool {
        self.rated.keeps(rated) && (self.families.is_empty() || self.families.contains(&family))
    }
}

/// One turn played from the position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnView {
    pub turn: Vec<String>,
    pub san: Vec<String>,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// The mean rating of the account players of these games (anonymous ones left out),
    /// rounded; `null` when none had a rating.
    pub average_rating: Option<i64>,
}

/// An example game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameView {
    pub id: String,
    /// The account's name; `null` for an anonymous seat.
    pub white: Option<String>,
    pub black: Option<String>,
    pub white_rating: Option<i64>,
    pub black_rating: Option<i64>,
    pub result: &'static str,
    pub speed: &'static str,
    pub rated: bool,
    pub ended_ms: i64,
}

/// `GET /api/explorer`'s body.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExplorerView {
    pub fen: String,
    /// Totals over the turns shown (their games are `white + draws + black`).
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub turns: Vec<TurnView>,
    /// The newest example games, newest first.
    #[serde(rename = "games")]
    pub examples: Vec<GameView>,
}

/// Sums of one turn while the rows are read.
#[derive(Default)]
struct Sums {
    games: u64,
    white: u64,
    draws: u64,
    black: u64,
    rating_sum: f64,
    rating_count: u64,
}

/// The turn's sub-moves and their SAN, played from `position`; `None` if the rules refuse
/// one (a stored turn that does not fit the position: only a 64-bit key collision could
/// bring one here).
fn written(position: &Position, turn: &str) -> Option<(Vec<String>, Vec<String>)> {
    let mut at = *position;
    let mut uci = Vec::new();
    let mut san = Vec::new();
    for text in turn.split(' ') {
        let mv: SubMove = text.parse().ok()?;
        if !at.legal_submoves().contains(&mv) {
            return None;
        }
        san.push(at.san(mv));
        uci.push(text.to_owned());
        at = at.play(mv).ok()?;
    }
    Some((uci, san))
}

fn rounded(rating: Option<f64>) -> Option<i64> {
    rating.map(|r| r.round() as i64)
}

fn game_view(example: &ExplorerExample) -> GameView {
    GameView {
        id: example.game_id.clone(),
        white: example.white.name.clone(),
        black: example.black.name.clone(),
        white_rating: rounded(example.white.rating),
        black_rating: rounded(example.black.rating),
        result: example.result.as_str(),
        speed: example.family.as_str(),
        rated: example.rated,
        ended_ms: example.ended_ms,
    }
}

/// The answer for `position` (its FEN is `fen`) from what the store holds of it.
pub fn answer(
    fen: String,
    position: &Position,
    stored: ExplorerPosition,
    filter: &Filter,
) -> ExplorerView {
    let mut sums: std::collections::BTreeMap<String, Sums> = std::collections::BTreeMap::new();
    for row in stored
        .turns
        .iter()
        .filter(|r| filter.keeps(r.family, r.rated))
    {
        let sum = sums.entry(row.turn.clone()).or_default();
        sum.games += row.games;
        sum.white += row.white;
        sum.draws += row.draws;
        sum.black += row.black;
        sum.rating_sum += row.rating_sum;
        sum.rating_count += row.rating_count;
    }
    let mut turns: Vec<TurnView> = sums
        .into_iter()
        .filter_map(|(turn, sum)| {
            let (turn, san) = written(position, &turn)?;
            Some(TurnView {
                turn,
                san,
                games: sum.games,
                white: sum.white,
                draws: sum.draws,
                black: sum.black,
                average_rating: (sum.rating_count > 0)
                    .then(|| (sum.rating_sum / sum.rating_count as f64).round() as i64),
            })
        })
        .collect();
    // Most played first; ties in the turn's text order (the map's), so the order is stable.
    turns.sort_by_key(|t| std::cmp::Reverse(t.games));
    let mut examples: Vec<&ExplorerExample> = stored
        .examples
        .iter()
        .filter(|e| filter.keeps(e.family, e.rated))
        .collect();
    examples.sort_by(|a, b| (b.ended_ms, &b.game_id).cmp(&(a.ended_ms, &a.game_id)));
    examples.dedup_by(|a, b| a.game_id == b.game_id);
    let total = |f: fn(&TurnView) -> u64| turns.iter().map(f).sum::<u64>();
    ExplorerView {
        fen,
        white: total(|t| t.white),
        draws: total(|t| t.draws),
        black: total(|t| t.black),
        examples: examples
            .into_iter()
            .take(EXAMPLES_SHOWN)
            .map(game_view)
            .collect(),
        turns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::game::speed::Speed;
    use crate::server::store::{ExplorerResult, ExplorerSeat, ExplorerTurnRow};

    fn row(
        turn: &str,
        family: ClockFamily,
        rated: bool,
        games: u64,
        white: u64,
    ) -> ExplorerTurnRow {
        ExplorerTurnRow {
            turn: turn.into(),
            family,
            rated,
            games,
            white,
            draws: 0,
            black: games - white,
            rating_sum: 1600.0 * games as f64,
            rating_count: games,
        }
    }

    const BLITZ: ClockFamily = ClockFamily::Timed(Speed::Blitz);

    #[test]
    fn rows_of_one_turn_add_up_and_the_most_played_comes_first() {
        let stored = ExplorerPosition {
            turns: vec![
                row("e2e4", BLITZ, true, 2, 1),
                row("e2e4", ClockFamily::Untimed, false, 1, 1),
                row("d2d4", BLITZ, false, 1, 0),
            ],
            examples: vec![],
        };
        let filter = Filter::parse(None, None).expect("filter");
        let view = answer("f".into(), &Position::initial(), stored, &filter);
        assert_eq!(view.white + view.draws + view.black, 4);
        assert_eq!(view.turns[0].turn, ["e2e4"]);
        assert_eq!(view.turns[0].san, ["e4"]);
        assert_eq!((view.turns[0].games, view.turns[0].white), (3, 2));
        assert_eq!(view.turns[0].average_rating, Some(1600));
    }

    #[test]
    fn the_filter_keeps_its_families_and_rated_or_casual() {
        let stored = ExplorerPosition {
            turns: vec![
                row("e2e4", BLITZ, true, 2, 1),
                row("e2e4", ClockFamily::Untimed, false, 1, 1),
                row("d2d4", BLITZ, false, 1, 0),
            ],
            examples: vec![],
        };
        let rated = Filter::parse(Some("rated"), None).expect("filter");
        let view = answer("f".into(), &Position::initial(), stored.clone(), &rated);
        assert_eq!(view.white + view.draws + view.black, 2);
        let untimed = Filter::parse(Some("casual"), Some("untimed")).expect("filter");
        let view = answer("f".into(), &Position::initial(), stored, &untimed);
        assert_eq!((view.white, view.turns.len()), (1, 1));
    }

    #[test]
    fn a_bad_filter_is_refused() {
        assert!(Filter::parse(Some("sometimes"), None).is_err());
        assert!(Filter::parse(None, Some("blitz,warp")).is_err());
        assert!(Filter::parse(None, Some("blitz,rapid")).is_ok());
    }

    #[test]
    fn a_turn_the_position_refuses_is_left_out() {
        let stored = ExplorerPosition {
            turns: vec![row("e7e5", BLITZ, false, 1, 0)],
            examples: vec![],
        };
        let filter = Filter::parse(None, None).expect("filter");
        let view = answer("f".into(), &Position::initial(), stored, &filter);
        assert!(view.turns.is_empty());
    }

    #[test]
    fn the_newest_examples_come_first() {
        let example = |id: &str, ended_ms| ExplorerExample {
            game_id: id.into(),
            family: BLITZ,
            rated: false,
            result: ExplorerResult::Draw,
            white: ExplorerSeat {
                name: Some("a".into()),
                rating: Some(1500.4),
            },
            black: ExplorerSeat {
                name: None,
                rating: None,
            },
            ended_ms,
        };
        let stored = ExplorerPosition {
            turns: vec![],
            examples: (0..8).map(|i| example(&format!("g{i}"), i)).collect(),
        };
        let filter = Filter::parse(None, None).expect("filter");
        let view = answer("f".into(), &Position::initial(), stored, &filter);
        let ids: Vec<&str> = view.examples.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(ids, ["g7", "g6", "g5", "g4", "g3"]);
        assert_eq!(view.examples[0].white_rating, Some(1500));
    }
}
