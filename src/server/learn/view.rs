//! What the lesson routes answer (docs/protocol.md, "Learn Marseillais"). Steps are numbered
//! from 1 on the wire, as the page shows them.

use serde::Serialize;

use crate::rules::{Color, Position};

use super::judge::{Judged, Verdict};
use super::lesson::{Kind, Lesson, LessonId, Step};
use super::reason::Reason;

/// A lesson in the list: `done` holds the account's finished steps (empty for an anonymous
/// player, whose progress the browser keeps).
#[derive(Serialize)]
pub struct LessonEntry {
    pub id: LessonId,
    pub kind: Kind,
    pub steps: usize,
    pub done: Vec<u32>,
}

/// `GET /api/learn`.
#[derive(Serialize)]
pub struct LessonList {
    pub signed_in: bool,
    pub lessons: Vec<LessonEntry>,
}

/// A step as the page plays it.
#[derive(Serialize)]
pub struct StepView {
    pub number: u32,
    pub fen: String,
    pub side: &'static str,
    pub goal: &'static str,
    /// Squares the page marks: the pieces to take, the squares to reach.
    pub marks: Vec<String>,
    /// The learner's legal sub-moves at the start (UCI).
    pub moves: Vec<String>,
    /// The opponent's turn that led here (UCI), to shade; often empty.
    pub last_turn: &'static [&'static str],
}

/// `GET /api/learn/{lesson}`.
#[derive(Serialize)]
pub struct LessonView {
    pub id: LessonId,
    pub kind: Kind,
    pub steps: Vec<StepView>,
    pub done: Vec<u32>,
    /// The lesson after this one, if any.
    pub next: Option<LessonId>,
    pub signed_in: bool,
}

/// `POST /api/learn/{lesson}/{step}/moves`.
#[derive(Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum VerdictView {
    /// The second sub-move is to come.
    Continue { fen: String, moves: Vec<String> },
    /// `recorded`: the step is now in the account's progress (false for anonymous players).
    Right {
        reason: Reason,
        fen: String,
        recorded: bool,
    },
    /// `start`: the step's position, to try again from.
    Wrong {
        reason: Reason,
        fen: String,
        start: String,
    },
}

pub fn side(position: &Position) -> &'static str {
    match position.side_to_move() {
        Color::White => "white",
        Color::Black => "black",
    }
}

pub fn legal(position: &Position) -> Vec<String> {
    position
        .legal_submoves()
        .iter()
        .map(|mv| mv.uci().to_string())
        .collect()
}

pub fn step_view(number: u32, step: &Step, start: &Position) -> StepView {
    StepView {
        number,
        fen: start.fen(),
        side: side(start),
        goal: step.goal.kind(),
        marks: step
            .goal
            .marked_squares()
            .iter()
            .map(|square| square.to_string())
            .collect(),
        moves: legal(start),
        last_turn: step.last_turn,
    }
}

pub fn verdict_view(judged: &Judged, start: &Position, recorded: bool) -> VerdictView {
    let fen = judged.position.fen();
    match judged.verdict {
        Verdict::Continue => VerdictView::Continue {
            fen,
            moves: legal(&judged.position),
        },
        Verdict::Right(reason) => VerdictView::Right {
            reason,
            fen,
            recorded,
        },
        Verdict::Wrong(reason) => VerdictView::Wrong {
            reason,
            fen,
            start: start.fen(),
        },
    }
}

/// The lesson after `lesson` in the list.
pub fn next_of(lesson: &Lesson, all: &[Lesson]) -> Option<LessonId> {
    let at = all.iter().position(|l| l.id == lesson.id)?;
    all.get(at + 1).map(|l| l.id)
}
