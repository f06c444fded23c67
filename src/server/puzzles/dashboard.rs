//! A player's puzzle dashboard from their rounds, as a pure function: totals, the rating after
//! each round, and per theme the rounds won and lost with the rating after each of them
//! (lichess's dashboard shows the same per theme).

use std::collections::BTreeMap;

use crate::server::store::{PuzzleAttempt, PuzzlePlayer};

use super::theme::Theme;
use super::view::{Dashboard, HistoryPoint, ThemeRecord};

/// The most points of a history sent: the last ones.
pub const HISTORY_POINTS: usize = 200;

/// `attempts` newest first, as the store returns them.
pub fn dashboard(player: Option<&PuzzlePlayer>, attempts: &[PuzzleAttempt]) -> Dashboard {
    let mut history = Vec::new();
    let mut themes: BTreeMap<Theme, ThemeRecord> = BTreeMap::new();
    for attempt in attempts.iter().rev() {
        let point = HistoryPoint {
            at_ms: attempt.at_ms,
            rating: attempt.rating_after.round() as i64,
        };
        history.push(point);
        for theme in attempt.themes.iter().filter_map(|key| Theme::from_key(key)) {
            let record = themes.entry(theme).or_insert_with(|| ThemeRecord {
                key: theme.key().to_string(),
                solved: 0,
                failed: 0,
                history: Vec::new(),
            });
            if attempt.solved {
                record.solved += 1;
            } else {
                record.failed += 1;
            }
            record.history.push(point);
        }
    }
    for record in themes.values_mut() {
        keep_last(&mut record.history);
    }
    keep_last(&mut history);
    Dashboard {
        rating: player.map(|p| p.rating.view()),
        solved: player.map_or(0, |p| p.solved),
        failed: player.map_or(0, |p| p.failed),
        history,
        themes: themes.into_values().collect(),
    }
}

fn keep_last(points: &mut Vec<HistoryPoint>) {
    let extra = points.len().saturating_sub(HISTORY_POINTS);
    points.drain(..extra);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::domain::rating::Rating;

    fn attempt(
        puzzle: &str,
        solved: bool,
        at_ms: i64,
        rating_after: f64,
        themes: &[&str],
    ) -> PuzzleAttempt {
        PuzzleAttempt {
            puzzle: puzzle.to_string(),
            solved,
            at_ms,
            rating_after,
            themes: themes.iter().map(|t| t.to_string()).collect(),
        }
    }

    #[test]
    fn the_dashboard_counts_each_theme_and_keeps_its_history_oldest_first() {
        let player = PuzzlePlayer {
            rating: Rating {
                rating: 1530.0,
                ..Rating::INITIAL
            },
            solved: 2,
            failed: 1,
        };
        let newest_first = [
            attempt("c", true, 30, 1530.0, &["fork", "short"]),
            attempt("b", false, 20, 1480.0, &["fork", "notATheme"]),
            attempt("a", true, 10, 1600.0, &["mateIn1"]),
        ];
        let board = dashboard(Some(&player), &newest_first);
        assert_eq!(board.solved, 2);
        assert_eq!(board.failed, 1);
        assert_eq!(board.rating.map(|r| r.rating), Some(1530));
        assert_eq!(
            board.history.iter().map(|p| p.at_ms).collect::<Vec<_>>(),
            [10, 20, 30]
        );
        let fork = board.themes.iter().find(|t| t.key == "fork").unwrap();
        assert_eq!((fork.solved, fork.failed), (1, 1));
        assert_eq!(
            fork.history.iter().map(|p| p.rating).collect::<Vec<_>>(),
            [1480, 1530]
        );
        assert!(board.themes.iter().all(|t| t.key != "notATheme"));
    }

    #[test]
    fn a_long_history_keeps_its_last_points() {
        let attempts: Vec<_> = (0..HISTORY_POINTS as i64 + 50)
            .rev()
            .map(|i| attempt("p", true, i, 1500.0 + i as f64, &["fork"]))
            .collect();
        let board = dashboard(None, &attempts);
        assert_eq!(board.history.len(), HISTORY_POINTS);
        assert_eq!(
            board.history.last().map(|p| p.at_ms),
            Some(HISTORY_POINTS as i64 + 49)
        );
        assert_eq!(board.themes[0].history.len(), HISTORY_POINTS);
        assert_eq!(board.rating, None);
    }
}
