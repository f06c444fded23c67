//! What the puzzle routes answer (docs/protocol.md, "Puzzles"): a puzzle as the trainer shows
//! it (never its solution), a verdict, a round's rating change, the themes and the dashboard.

use serde::Serialize;

use crate::rules::{Color, SubMove};
use crate::server::domain::rating::{Rating, RatingView};
use crate::server::store::PuzzleRecord;

use super::line::PuzzleLine;

/// A puzzle on the wire. `fen` is the position before the opponent's last turn, `last_turn`
/// that turn and `start_fen` the solver's position after it; the solution is not sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PuzzleView {
    pub id: String,
    pub fen: String,
    pub last_turn: Vec<String>,
    pub start_fen: String,
    pub solver: &'static str,
    /// The solver's turns in the solution.
    pub turns: usize,
    pub rating: i64,
    pub plays: u32,
    pub themes: Vec<String>,
    /// The game it was found in (`/game/{id}`), or `None` for a self-play puzzle.
    pub game: Option<String>,
    pub url: String,
}

impl PuzzleView {
    pub fn of(record: &PuzzleRecord, line: &PuzzleLine) -> PuzzleView {
        PuzzleView {
            id: record.id.clone(),
            fen: line.start().fen(),
            last_turn: ucis(&line.turns()[0]),
            start_fen: line.solver_start().fen(),
            solver: side_name(line.solver()),
            turns: line.solver_turns(),
            rating: record.rating.rating.round() as i64,
            plays: record.plays,
            themes: record.themes.clone(),
            game: game_url(&record.source),
            url: format!("/puzzles/{}", record.id),
        }
    }
}

/// `/game/{id}` when the source names a game of this server.
fn game_url(source: &str) -> Option<String> {
    source
        .strip_prefix("/game/")
        .filter(|id| !id.is_empty())
        .map(|id| format!("/game/{id}"))
}

fn side_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

pub fn ucis(submoves: &[SubMove]) -> Vec<String> {
    submoves.iter().map(|mv| mv.uci().to_string()).collect()
}

pub fn solution_view(line: &PuzzleLine) -> Vec<Vec<String>> {
    line.solution().iter().map(|turn| ucis(turn)).collect()
}

/// `GET /api/puzzles/next`, `/daily`, `/{id}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PuzzleAnswer {
    pub puzzle: PuzzleView,
    /// Whether a first try of this puzzle changes the asker's puzzle rating.
    pub rated: bool,
    /// The asker's puzzle rating, when signed in.
    pub player: Option<RatingView>,
}

/// A rated first try: the player's new puzzle rating and its change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoundView {
    pub rated: bool,
    pub solved: bool,
    pub rating: RatingView,
    pub change: i64,
}

impl RoundView {
    pub fn of(solved: bool, before: &Rating, after: &Rating) -> RoundView {
        RoundView {
            rated: true,
            solved,
            rating: after.view(),
            change: Rating::change(before, after),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictName {
    Continue,
    Reply,
    Solved,
    Wrong,
}

/// `POST /api/puzzles/{id}/moves`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveAnswer {
    pub verdict: VerdictName,
    pub reply: Option<Vec<String>>,
    pub expected: Option<String>,
    pub solution: Option<Vec<Vec<String>>>,
    pub round: Option<RoundView>,
}

/// `POST /api/puzzles/{id}/solution`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolutionAnswer {
    pub solution: Vec<Vec<String>>,
    pub round: Option<RoundView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThemeCount {
    pub key: String,
    pub count: u64,
}

/// `GET /api/puzzles/themes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThemesAnswer {
    pub total: u64,
    pub themes: Vec<ThemeCount>,
}

/// One point of a rating history: the puzzle rating after a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HistoryPoint {
    pub at_ms: i64,
    pub rating: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThemeRecord {
    pub key: String,
    pub solved: u32,
    pub failed: u32,
    pub history: Vec<HistoryPoint>,
}

/// `GET /api/users/{name}/puzzles`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dashboard {
    pub rating: Option<RatingView>,
    pub solved: u32,
    pub failed: u32,
    pub history: Vec<HistoryPoint>,
    pub themes: Vec<ThemeRecord>,
}
