//! What the arena routes answer (docs/protocol.md, "Arenas"): an arena's page whole
//! ([`ArenaView`]: its terms, phase, standings, podium, games and the asker's own place) and
//! the lines of the lists ([`ArenaLine`]). Built from a [`Snapshot`], pure.

use serde::Serialize;

use crate::server::domain::user::UserId;
use crate::server::game::ClockSpec;
use crate::server::play::protocol::Side;

use super::read::Snapshot;
use super::standings::{self, Standing};
use super::step;
use super::tournament::{Creator, Phase, Tournament};

/// The games an arena page lists at most (the latest).
pub const GAMES_SHOWN: usize = 100;

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
    pub standings: Vec<StandingView>,
    /// The first three of a finished arena.
    pub podium: Vec<StandingView>,
    /// The latest games, newest first.
    pub games: Vec<GameView>,
    /// Only to a signed-in asker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub me: Option<MeView>,
}

/// The page of `snapshot` at `now_ms` for `me` (`None`: nobody signed in).
pub fn arena_view(snapshot: &Snapshot, now_ms: i64, me: Option<UserId>) -> ArenaView {
    let tournament = &snapshot.tournament;
    let games = snapshot.arena_games();
    let lines = standings::standings(&snapshot.entrants(), &games);
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
        podium: step::podium(tournament, &lines, now_ms)
            .iter()
            .map(standing)
            .collect(),
        standings: lines.iter().map(standing).collect(),
        games: game_views,
        me,
    }
}
