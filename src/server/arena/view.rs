//! What the arena routes answer (docs/protocol.md, "Arenas"): an arena's page whole
//! ([`ArenaView`]: its terms, phase, standings, podium, games and the asker's own place) and
//! the lines of the lists ([`ArenaLine`]). Built from a [`Snapshot`], pure.

use serde::Serialize;

use crate::server::domain::user::UserId;
use crate::server::game::ClockSpec;
use crate::server::play::protocol::Side;

use super::read::Snapshot;
use super::standings::Standing;
use super::step;
use super::tournament::{Creator, Phase, Tournament};

/// The games an arena page lists at most (the latest).
pub const GAMES_SHOWN: usize = 100;

/// Lines of the standings per page (`?page=`): an arena of a thousand players answers a
/// page, not the whole table, to every poll.
pub const STANDINGS_PAGE: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PhaseView {
    Upcoming,
    Running,
    Finished,
}

impl From<Phase> for PhaseView {
    fn from(phase: Phase) -> PhaseView {
        match phase {
            Phase::Upcoming => PhaseView::Upcoming,
            Phase::Running => PhaseView::Running,
            Phase::Finished => PhaseView::Finished,
        }
    }
}

/// One arena in a list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArenaLine {
    pub id: String,
    pub url: String,
    pub name: String,
    pub clock: ClockSpec,
    pub rated: bool,
    pub starts_ms: i64,
    pub ends_ms: i64,
    pub phase: PhaseView,
    /// `true` for an arena of the server's own schedule.
    pub scheduled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_rated_games: Option<u32>,
}

impl ArenaLine {
    pub fn of(tournament: &Tournament, now_ms: i64) -> ArenaLine {
        let terms = &tournament.terms;
        ArenaLine {
            id: tournament.id.clone(),
            url: format!("/arena/{}", tournament.id),
            name: terms.name.clone(),
            clock: terms.clock,
            rated: terms.rated,
            starts_ms: terms.starts_ms,
            ends_ms: tournament.ends_ms(),
            phase: tournament.phase(now_ms).into(),
            scheduled: tournament.creator == Creator::Schedule,
            min_rated_games: terms.min_rated_games,
        }
    }
}

/// One finished game's score on a player's sheet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ScoreView {
    pub points: u32,
    /// Scored double (the player was on fire).
    pub fire: bool,
    /// The berserk point was won.
    pub berserk: bool,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StandingView {
    pub rank: u32,
    pub name: String,
    pub rating: i32,
    pub points: u32,
    pub sheet: Vec<ScoreView>,
    /// Their next result scores double.
    pub fire: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance: Option<i32>,
    pub games: usize,
    pub playing: bool,
    pub withdrawn: bool,
}

/// One game of the arena.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameView {
    pub id: String,
    pub url: String,
    pub white: String,
    pub black: String,
    /// `1-0`, `0-1`, `1/2-1/2`; absent while it is played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<&'static str>,
}

/// The asker's own place in the arena.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MeView {
    pub joined: bool,
    pub withdrawn: bool,
    /// Their place, once joined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
    /// Their game being played, if any: the page goes there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<MyGame>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MyGame {
    pub id: String,
    pub url: String,
    pub color: Side,
}

/// `GET /api/arenas/{id}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArenaView {
    #[serde(flatten)]
    pub line: ArenaLine,
    /// The creator's name; absent for a scheduled arena.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creator: Option<String>,
    /// When pairing stops (games still being played then are finished and counted).
    pub pairing_ends_ms: i64,
    pub players: usize,
    /// One page of the standings (`standings_page` of `standings_pages`, from 1).
    pub standings: Vec<StandingView>,
    pub standings_page: usize,
    pub standings_pages: usize,
    /// The first three of a finished arena.
    pub podium: Vec<StandingView>,
    /// The latest games, newest first.
    pub games: Vec<GameView>,
    /// Only to a signed-in asker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub me: Option<MeView>,
}

/// The page of `snapshot` at `now_ms` for `me` (`None`: nobody signed in), with page `page`
/// of the standings (from 1; past the last: the last).
pub fn arena_view(snapshot: &Snapshot, now_ms: i64, me: Option<UserId>, page: usize) -> ArenaView {
    let tournament = &snapshot.tournament;
    let lines = &snapshot.lines;
    let pages = lines.len().div_ceil(STANDINGS_PAGE).max(1);
    let page = page.clamp(1, pages);
    let name_of = |user: UserId| {
        snapshot
            .player(user)
            .map_or_else(|| format!("#{}", user.0), |p| p.name.as_str().to_owned())
    };
    let standing = |line: &Standing| StandingView {
        rank: line.rank,
        name: name_of(line.user),
        rating: snapshot.player(line.user).map_or(0, |p| p.rating),
        points: line.points,
        sheet: line
            .sheet
            .iter()
            .map(|s| ScoreView {
                points: s.points,
                fire: s.doubled,
                berserk: s.berserk_bonus,
            })
            .collect(),
        fire: line.on_fire,
        performance: line.performance,
        games: line.sheet.len(),
        playing: line.playing,
        withdrawn: line.withdrawn,
    };
    let game_views = snapshot
        .games
        .iter()
        .rev()
        .take(GAMES_SHOWN)
        .map(|row| GameView {
            id: row.id.clone(),
            url: format!("/game/{}", row.id),
            white: name_of(row.game.white),
            black: name_of(row.game.black),
            result: row.game.end.map(|end| match end.winner {
                Some(crate::rules::Color::White) => "1-0",
                Some(crate::rules::Color::Black) => "0-1",
                None => "1/2-1/2",
            }),
        })
        .collect();
    let me = me.map(|user| {
        let entry = snapshot.player(user);
        let line = lines.iter().find(|line| line.user == user);
        let game = snapshot
            .games
            .iter()
            .rev()
            .find(|row| {
                row.game.end.is_none() && (row.game.white == user || row.game.black == user)
            })
            .map(|row| MyGame {
                id: row.id.clone(),
                url: format!("/game/{}", row.id),
                color: if row.game.white == user {
                    Side::White
                } else {
                    Side::Black
                },
            });
        MeView {
            joined: entry.is_some(),
            withdrawn: entry.is_some_and(|p| p.withdrawn),
            rank: line.map(|line| line.rank),
            points: line.map(|line| line.points),
            game,
        }
    });
    let closing = super::pairing::closing_time(std::time::Duration::from_secs(u64::from(
        tournament.terms.clock.base_secs,
    )));
    ArenaView {
        line: ArenaLine::of(tournament, now_ms),
        creator: snapshot.creator_name.clone(),
        pairing_ends_ms: tournament.ends_ms() - closing.as_millis() as i64,
        players: snapshot.players.len(),
        podium: step::podium(tournament, lines, now_ms)
            .iter()
            .map(standing)
            .collect(),
        standings: lines
            .iter()
            .skip((page - 1) * STANDINGS_PAGE)
            .take(STANDINGS_PAGE)
            .map(standing)
            .collect(),
        standings_page: page,
        standings_pages: pages,
        games: game_views,
        me,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::server::arena::read::Snapshot;
    use crate::server::arena::tournament::Terms;
    use crate::server::domain::user::Username;
    use crate::server::store::ArenaPlayer;

    fn snapshot(players: i64) -> Snapshot {
        let players: Vec<ArenaPlayer> = (1..=players)
            .map(|id| ArenaPlayer {
                user: UserId(id),
                name: Username::parse(&format!("player{id}")).expect("a name"),
                joined_ms: id,
                rating: 1500,
                withdrawn: false,
            })
            .collect();
        let mut snapshot = Snapshot {
            tournament: Tournament {
                id: "a".into(),
                creator: Creator::Schedule,
                terms: Terms {
                    name: "Big arena".into(),
                    clock: ClockSpec {
                        base_secs: 180,
                        increment_secs: 2,
                    },
                    starts_ms: 0,
                    duration: Duration::from_secs(3600),
                    rated: true,
                    min_rated_games: None,
                },
            },
            creator_name: None,
            players,
            games: Vec::new(),
            lines: Vec::new(),
        };
        snapshot.lines = crate::server::arena::standings::standings(&snapshot.entrants(), &[]);
        snapshot
    }

    #[test]
    fn the_standings_come_a_page_at_a_time_and_the_asker_sees_their_own_place() {
        let arena = snapshot(45);
        let first = arena_view(&arena, 1, Some(UserId(44)), 1);
        assert_eq!((first.standings_page, first.standings_pages), (1, 3));
        assert_eq!(first.standings.len(), STANDINGS_PAGE);
        assert_eq!(first.standings[0].rank, 1);
        let me = first.me.expect("signed in");
        assert_eq!((me.joined, me.rank), (true, Some(44)));
        let last = arena_view(&arena, 1, None, 3);
        assert_eq!(last.standings.len(), 5);
        assert_eq!(last.standings[0].rank, 41);
        assert_eq!(
            arena_view(&arena, 1, None, 99).standings_page,
            3,
            "past the last"
        );
        assert_eq!(arena_view(&arena, 1, None, 0).standings_page, 1);
        assert!(last.me.is_none());
    }
}
