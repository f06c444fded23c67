//! The lessons' routes (docs/protocol.md, "Learn Marseillais"): the pages `/learn` and
//! `/learn/{lesson}` (the client's shell) and the API. A right step of a signed-in player is
//! kept in the store (any node sees it); an anonymous player's progress stays in the browser.

use std::sync::Arc;

use axum::extract::{FromRef, Path, Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

use crate::rules::SubMove;
use crate::server::deps::Deps;
use crate::server::domain::user::Account;
use crate::server::players::account::{Accounts, MaybeAccount};
use crate::server::store::LessonStep;
use crate::server::web::{ApiError, assets, read_json_body};

use super::error::LearnError;
use super::judge::{Verdict, judge, start};
use super::lesson::{Lesson, LessonId, Step};
use super::lessons::{LESSONS, lesson};
use super::view::{self, LessonEntry, LessonList, LessonView};

/// The longest body of a moves request: a turn is at most two sub-moves; the list may hold a
/// few more only to be refused as past the turn, with the JSON around them.
const MAX_MOVES_BYTES: usize = 512;
/// More sub-moves than a turn can hold are refused before any is read.
const MAX_MOVES: usize = 4;

#[derive(Clone)]
pub struct LearnState {
    pub deps: Deps,
    pub accounts: Arc<Accounts>,
}

impl FromRef<LearnState> for Arc<Accounts> {
    fn from_ref(state: &LearnState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}

pub fn router(state: LearnState) -> Router {
    Router::new()
        .route("/learn", get(page))
        .route("/learn/{lesson}", get(page))
        .route("/api/learn", get(list))
        .route("/api/learn/{lesson}", get(show))
        .route("/api/learn/{lesson}/{step}/moves", post(moves))
        .with_state(state)
}

async fn page() -> Response {
    assets::index_page()
}

/// The account's finished steps, by lesson.
async fn progress(app: &LearnState, me: Option<&Account>) -> Result<Vec<LessonStep>, ApiError> {
    let Some(me) = me else {
        return Ok(Vec::new());
    };
    app.deps.store.lesson_steps(me.id).await.map_err(|error| {
        tracing::warn!(%error, "lesson progress could not be read");
        LearnError::Store.into()
    })
}

fn done_in(progress: &[LessonStep], id: LessonId) -> Vec<u32> {
    let mut done: Vec<u32> = progress
        .iter()
        .filter(|done| done.lesson == id.as_str())
        .map(|done| done.step)
        .collect();
    done.sort_unstable();
    done.dedup();
    done
}

async fn list(
    State(app): State<LearnState>,
    MaybeAccount(me): MaybeAccount,
) -> Result<Response, ApiError> {
    let progress = progress(&app, me.as_ref()).await?;
    let lessons = LESSONS
        .iter()
        .map(|lesson| LessonEntry {
            id: lesson.id,
            kind: lesson.kind,
            steps: lesson.steps.len(),
            done: done_in(&progress, lesson.id),
        })
        .collect();
    Ok(Json(LessonList {
        signed_in: me.is_some(),
        lessons,
    })
    .into_response())
}

fn lesson_of(key: &str) -> Result<&'static Lesson, LearnError> {
    LessonId::from_key(key)
        .map(lesson)
        .ok_or_else(|| LearnError::UnknownLesson(key.chars().take(40).collect()))
}

async fn show(
    State(app): State<LearnState>,
    MaybeAccount(me): MaybeAccount,
    Path(key): Path<String>,
) -> Result<Response, ApiError> {
    let lesson = lesson_of(&key)?;
    let mut steps = Vec::with_capacity(lesson.steps.len());
    for (number, step) in (1..).zip(lesson.steps) {
        let start = start(step).map_err(LearnError::from)?;
        steps.push(view::step_view(number, step, &start));
    }
    let progress = progress(&app, me.as_ref()).await?;
    Ok(Json(LessonView {
        id: lesson.id,
        kind: lesson.kind,
        steps,
        done: done_in(&progress, lesson.id),
        next: view::next_of(lesson, &LESSONS),
        signed_in: me.is_some(),
    })
    .into_response())
}

/// `{"moves": ["e2e4", ...]}`: every sub-move played in the step so far.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Played {
    moves: Vec<String>,
}

fn step_of(lesson: &'static Lesson, text: &str) -> Result<(u32, &'static Step), LearnError> {
    let unknown = || LearnError::UnknownStep {
        lesson: lesson.id.as_str().to_owned(),
        step: text.chars().take(20).collect(),
    };
    let number: u32 = text.parse().map_err(|_| unknown())?;
    let index = usize::try_from(number).map_err(|_| unknown())?;
    let step = index
        .checked_sub(1)
        .and_then(|i| lesson.steps.get(i))
        .ok_or_else(unknown)?;
    Ok((number, step))
}

async fn moves(
    State(app): State<LearnState>,
    MaybeAccount(me): MaybeAccount,
    Path((key, step_text)): Path<(String, String)>,
    request: Request,
) -> Result<Response, ApiError> {
    let lesson = lesson_of(&key)?;
    let (number, step) = step_of(lesson, &step_text)?;
    let body = read_json_body(request, MAX_MOVES_BYTES, app.deps.config.body_read_timeout).await?;
    let played: Played =
        serde_json::from_slice(&body).map_err(|e| LearnError::Moves(e.to_string()))?;
    if played.moves.len() > MAX_MOVES {
        return Err(LearnError::Moves(format!("a turn has at most {MAX_MOVES} sub-moves")).into());
    }
    let submoves = played
        .moves
        .iter()
        .map(|text| {
            text.parse::<SubMove>()
                .map_err(|e| LearnError::Moves(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let judged = judge(step, &submoves).map_err(LearnError::from)?;
    let start = start(step).map_err(LearnError::from)?;
    let mut recorded = false;
    if let (Verdict::Right(_), Some(me)) = (judged.verdict, me.as_ref()) {
        let at_ms = crate::server::game::now_ms();
        app.deps
            .store
            .record_lesson_step(me.id, lesson.id.as_str(), number, at_ms)
            .await
            .map_err(|error| {
                tracing::warn!(%error, "a lesson step could not be recorded");
                ApiError::from(LearnError::Store)
            })?;
        recorded = true;
    }
    Ok(Json(view::verdict_view(&judged, &start, recorded)).into_response())
}
