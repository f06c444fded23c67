//! One step of a running arena, pure: what its pairing task decides at an instant from what the
//! store holds (the arena, its players in the order they joined, its games in the order they
//! were paired). The task carries the decision out (the games made, the players told); since
//! everything is read again at every step, a restart mid-arena decides the same.

use crate::server::domain::user::UserId;

use super::pairing;
use super::standings::{self, ArenaGame, Entrant, Standing};
use super::tournament::{Phase, Tournament};

/// The games to start now, White first.
pub fn games_to_start(
    tournament: &Tournament,
    entrants: &[Entrant],
    games: &[ArenaGame],
    now_ms: i64,
    coin: impl FnMut() -> bool,
) -> Vec<(UserId, UserId)> {
    games_to_start_avoiding(tournament, entrants, games, now_ms, coin, &|_, _| false)
}

/// [`games_to_start`] where `blocked(a, b)` says whether a block stands between two players
/// ([`pairing::pairs_avoiding`]).
pub fn games_to_start_avoiding(
    tournament: &Tournament,
    entrants: &[Entrant],
    games: &[ArenaGame],
    now_ms: i64,
    coin: impl FnMut() -> bool,
    blocked: &dyn Fn(UserId, UserId) -> bool,
) -> Vec<(UserId, UserId)> {
    if !tournament.pairing_open(now_ms) {
        return Vec::new();
    }
    let lines = standings::standings(entrants, games);
    let waiting = standings::waiting(entrants, games, &lines);
    if waiting.len() < 2 {
        return Vec::new();
    }
    pairing::pairs_avoiding(&waiting, standings::active(entrants), coin, blocked)
        .into_iter()
        .map(|(white, black)| (waiting[white].user, waiting[black].user))
        .collect()
}

/// The podium of a finished arena: its first three, if it had that many players with a game.
pub fn podium(tournament: &Tournament, lines: &[Standing], now_ms: i64) -> Vec<Standing> {
    if tournament.phase(now_ms) != Phase::Finished {
        return Vec::new();
    }
    lines
        .iter()
        .filter(|line| !line.sheet.is_empty())
        .take(3)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::rules::Color;
    use crate::server::arena::standings::Ending;
    use crate::server::arena::tournament::{Creator, Terms};
    use crate::server::game::ClockSpec;

    const MINUTE: i64 = 60_000;

    fn arena() -> Tournament {
        Tournament {
            id: "t".into(),
            creator: Creator::Schedule,
            terms: Terms {
                name: "Test arena".into(),
                clock: ClockSpec {
                    base_secs: 180,
                    increment_secs: 2,
                },
                starts_ms: 0,
                duration: Duration::from_secs(3600),
                rated: true,
                min_rated_games: None,
            },
        }
    }

    fn entrants(n: i64) -> Vec<Entrant> {
        (1..=n)
            .map(|id| Entrant {
                user: UserId(id),
                rating: 1500,
                withdrawn: false,
            })
            .collect()
    }

    fn game(white: i64, black: i64, end: Option<Option<Color>>) -> ArenaGame {
        ArenaGame {
            white: UserId(white),
            black: UserId(black),
            ratings: [1500, 1500],
            end: end.map(|winner| Ending {
                winner,
                turns: 30,
                berserk: [false, false],
            }),
        }
    }

    #[test]
    fn players_whose_games_ended_are_paired_again_and_those_playing_are_not() {
        let players = entrants(4);
        let games = [game(1, 2, Some(Some(Color::White))), game(3, 4, None)];
        let start = games_to_start(&arena(), &players, &games, 10 * MINUTE, || true);
        assert!(start.is_empty(), "1 and 2 just met; 3 and 4 are playing");
        let games = [game(1, 2, Some(Some(Color::White))), game(3, 4, Some(None))];
        let mut start = games_to_start(&arena(), &players, &games, 10 * MINUTE, || true);
        start.sort();
        assert_eq!(start.len(), 2);
        for (white, black) in &start {
            let pair = [white.0, black.0];
            assert!(!(pair.contains(&1) && pair.contains(&2)), "{start:?}");
            assert!(!(pair.contains(&3) && pair.contains(&4)), "{start:?}");
        }
    }

    #[test]
    fn nobody_is_paired_before_the_start_or_once_pairing_has_closed() {
        let players = entrants(2);
        let mut upcoming = arena();
        upcoming.terms.starts_ms = MINUTE;
        assert!(games_to_start(&upcoming, &players, &[], 0, || true).is_empty());
        let closing = arena().ends_ms() - 90_000;
        assert!(games_to_start(&arena(), &players, &[], closing, || true).is_empty());
        assert_eq!(
            games_to_start(&arena(), &players, &[], closing - 1, || true).len(),
            1
        );
    }

    #[test]
    fn the_podium_is_shown_once_the_arena_is_over_and_only_players_with_games_stand_on_it() {
        let players = entrants(4);
        let games = [game(1, 2, Some(Some(Color::White)))];
        let lines = standings::standings(&players, &games);
        assert!(
            podium(&arena(), &lines, 30 * MINUTE).is_empty(),
            "still running"
        );
        let top = podium(&arena(), &lines, arena().ends_ms());
        let users: Vec<i64> = top.iter().map(|l| l.user.0).collect();
        assert_eq!(users, [1, 2]);
    }
}
