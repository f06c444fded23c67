//! The trainer's actions over the store: the next puzzle, one puzzle, the puzzle of the day,
//! a sub-move judged, a hint, the solution, the themes and a player's dashboard; and the import
//! of a set. Nothing is kept in memory but two caches (the day's puzzle, the theme counts), so
//! that any node of a cluster answers any request.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::RngExt;

use crate::rules::{Square, SubMove};
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{Account, Username};
use crate::server::game::now_ms;
use crate::server::store::{PuzzleRecord, PuzzleRound, RoundOutcome, Store};

use super::csv::CsvPuzzle;
use super::dashboard::dashboard;
use super::error::PuzzleError;
use super::judge::{self, Verdict};
use super::line::PuzzleLine;
use super::pick;
use super::theme::Theme;
use super::view::{
    Dashboard, MoveAnswer, PuzzleAnswer, PuzzleView, RoundView, SolutionAnswer, ThemeCount,
    ThemesAnswer, VerdictName, solution_view, ucis,
};

/// How long the theme counts are served from memory: they change only when a set is imported.
const THEMES_FRESH_FOR: Duration = Duration::from_secs(60);

/// The rounds a dashboard is made from (newest first): its history keeps the last 200 points
/// overall and per theme.
const DASHBOARD_ROUNDS: u32 = 2_000;

pub struct Puzzles {
    store: Arc<dyn Store>,
    daily: Mutex<Option<(i64, PuzzleRecord)>>,
    themes: Mutex<Option<(Instant, ThemesAnswer)>>,
}

impl Puzzles {
    pub fn new(store: Arc<dyn Store>) -> Puzzles {
        Puzzles {
            store,
            daily: Mutex::new(None),
            themes: Mutex::new(None),
        }
    }

    /// Adds a set (checked rows, as `csv::read` returns them) to the store; a puzzle already
    /// there is left as it is (its rating and plays are the players'). Returns how many were new.
    pub async fn import(&self, rows: Vec<CsvPuzzle>) -> Result<u64, PuzzleError> {
        let created_ms = now_ms();
        let records = rows
            .into_iter()
            .map(|row| record_of(row, created_ms))
            .collect();
        let added = self
            .store
            .import_puzzles(records)
            .await
            .map_err(|_| PuzzleError::Store)?;
        if added > 0 {
            *lock(&self.themes) = None;
            *lock(&self.daily) = None;
        }
        Ok(added)
    }

    /// A signed-in player's next puzzle is near their puzzle rating and one they never played;
    /// an anonymous one's is the one after `after` (the last they saw) in the id order.
    pub async fn next(
        &self,
        me: Option<&Account>,
        theme: Option<Theme>,
        after: Option<String>,
    ) -> Result<PuzzleAnswer, PuzzleError> {
        let theme_key = theme.map(|t| t.key().to_string());
        let (record, rating) = match me {
            Some(account) => {
                let rating = self.player_rating(account).await?;
                let jitter = rand::rng().random_range(-pick::SPREAD..=pick::SPREAD);
                let target = pick::target(rating.rating, jitter);
                let record = self
                    .store
                    .puzzle_near(Some(account.id), theme_key, target)
                    .await;
                (record, Some(rating))
            }
            None => (self.store.puzzle_after(theme_key, after).await, None),
        };
        let record = record
            .map_err(|_| PuzzleError::Store)?
            .ok_or(PuzzleError::NoneLeft)?;
        answer(record, rating)
    }

    pub async fn show(&self, me: Option<&Account>, id: &str) -> Result<PuzzleAnswer, PuzzleError> {
        let record = self.record(id).await?;
        self.answer(me, record).await
    }

    /// The same puzzle all day (UTC) for everyone, on every node.
    pub async fn daily(&self, me: Option<&Account>) -> Result<PuzzleAnswer, PuzzleError> {
        let day = pick::day_of(now_ms());
        let cached = lock(&self.daily)
            .as_ref()
            .filter(|(at, _)| *at == day)
            .map(|(_, record)| record.clone());
        let record = match cached {
            Some(record) => record,
            None => {
                let record = self
                    .store
                    .puzzle_after(None, Some(pick::daily_cursor(day)))
                    .await
                    .map_err(|_| PuzzleError::Store)?
                    .ok_or(PuzzleError::NoneLeft)?;
                *lock(&self.daily) = Some((day, record.clone()));
                record
            }
        };
        self.answer(me, record).await
    }

    /// Judges the solver's sub-moves so far (the last one new). The first verdict that ends
    /// the puzzle (solved, or a wrong sub-move) is the account's round, rated once: the first
    /// try only, as on lichess.
    pub async fn play(
        &self,
        me: Option<&Account>,
        id: &str,
        played: &[SubMove],
    ) -> Result<MoveAnswer, PuzzleError> {
        let record = self.record(id).await?;
        let line = line_of(&record)?;
        let verdict = judge::judge(&line, played)?;
        let (name, reply, expected, ended) = match verdict {
            Verdict::Continue => (VerdictName::Continue, None, None, None),
            Verdict::Reply(turn) => (VerdictName::Reply, Some(ucis(&turn)), None, None),
            Verdict::Solved => (VerdictName::Solved, None, None, Some(true)),
            Verdict::Wrong { expected } => (
                VerdictName::Wrong,
                None,
                Some(expected.uci().to_string()),
                Some(false),
            ),
        };
        let round = match ended {
            Some(solved) => self.round(me, &record.id, solved).await?,
            None => None,
        };
        Ok(MoveAnswer {
            verdict: name,
            reply,
            expected,
            solution: ended.map(|_| solution_view(&line)),
            round,
        })
    }

    /// The square of the piece to move next. Asking is a failed first try, as a wrong sub-move.
    pub async fn hint(
        &self,
        me: Option<&Account>,
        id: &str,
        played: &[SubMove],
    ) -> Result<(Square, Option<RoundView>), PuzzleError> {
        let record = self.record(id).await?;
        let line = line_of(&record)?;
        let square = judge::hint(&line, played)?;
        let round = self.round(me, &record.id, false).await?;
        Ok((square, round))
    }

    /// The whole solution. Asking is a failed first try.
    pub async fn solution(
        &self,
        me: Option<&Account>,
        id: &str,
    ) -> Result<SolutionAnswer, PuzzleError> {
        let record = self.record(id).await?;
        let line = line_of(&record)?;
        let round = self.round(me, &record.id, false).await?;
        Ok(SolutionAnswer {
            solution: solution_view(&line),
            round,
        })
    }

    /// Every theme with its count, in the themes' own order.
    pub async fn themes(&self) -> Result<ThemesAnswer, PuzzleError> {
        if let Some((at, answer)) = lock(&self.themes).as_ref()
            && at.elapsed() < THEMES_FRESH_FOR
        {
            return Ok(answer.clone());
        }
        let counts = self
            .store
            .puzzle_themes()
            .await
            .map_err(|_| PuzzleError::Store)?;
        let total = self
            .store
            .puzzle_count()
            .await
            .map_err(|_| PuzzleError::Store)?;
        let themes = Theme::ALL
            .iter()
            .map(|theme| ThemeCount {
                key: theme.key().to_string(),
                count: counts
                    .iter()
                    .find(|(key, _)| key == theme.key())
                    .map_or(0, |(_, count)| *count),
            })
            .collect();
        let answer = ThemesAnswer { total, themes };
        *lock(&self.themes) = Some((Instant::now(), answer.clone()));
        Ok(answer)
    }

    pub async fn dashboard(&self, username: &str) -> Result<Dashboard, PuzzleError> {
        let name = Username::parse(username).map_err(|_| PuzzleError::NoSuchUser)?;
        let user = self
            .store
            .find_user(&name)
            .await
            .map_err(|_| PuzzleError::Store)?
            .ok_or(PuzzleError::NoSuchUser)?;
        let id = user.account.id;
        let player = self
            .store
            .puzzle_player(id)
            .await
            .map_err(|_| PuzzleError::Store)?;
        let attempts = self
            .store
            .puzzle_attempts(id, DASHBOARD_ROUNDS)
            .await
            .map_err(|_| PuzzleError::Store)?;
        Ok(dashboard(player.as_ref(), &attempts))
    }

    async fn record(&self, id: &str) -> Result<PuzzleRecord, PuzzleError> {
        if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(PuzzleError::NotFound);
        }
        self.store
            .puzzle(id)
            .await
            .map_err(|_| PuzzleError::Store)?
            .ok_or(PuzzleError::NotFound)
    }

    async fn player_rating(&self, account: &Account) -> Result<Rating, PuzzleError> {
        Ok(self
            .store
            .puzzle_player(account.id)
            .await
            .map_err(|_| PuzzleError::Store)?
            .map_or(Rating::INITIAL, |player| player.rating))
    }

    async fn answer(
        &self,
        me: Option<&Account>,
        record: PuzzleRecord,
    ) -> Result<PuzzleAnswer, PuzzleError> {
        let rating = match me {
            Some(account) => Some(self.player_rating(account).await?),
            None => None,
        };
        answer(record, rating)
    }

    /// Records an account's round (the store rates only its first try of the puzzle).
    async fn round(
        &self,
        me: Option<&Account>,
        puzzle: &str,
        solved: bool,
    ) -> Result<Option<RoundView>, PuzzleError> {
        let Some(account) = me else {
            return Ok(None);
        };
        let outcome = self
            .store
            .record_puzzle_round(PuzzleRound {
                user: account.id,
                puzzle: puzzle.to_string(),
                solved,
                at_ms: now_ms(),
            })
            .await
            .map_err(|_| PuzzleError::Store)?;
        Ok(match outcome {
            RoundOutcome::Rated {
                player_before,
                player_after,
                ..
            } => Some(RoundView::of(solved, &player_before, &player_after)),
            RoundOutcome::Repeated => None,
        })
    }
}

/// A puzzle as the asker sees it; `rating` is the asker's puzzle rating when signed in.
fn answer(record: PuzzleRecord, rating: Option<Rating>) -> Result<PuzzleAnswer, PuzzleError> {
    let line = line_of(&record)?;
    Ok(PuzzleAnswer {
        puzzle: PuzzleView::of(&record, &line),
        rated: rating.is_some(),
        player: rating.map(|r| r.view()),
    })
}

fn line_of(record: &PuzzleRecord) -> Result<PuzzleLine, PuzzleError> {
    PuzzleLine::parse(&record.fen, &record.moves).map_err(|e| PuzzleError::Damaged(e.to_string()))
}

fn record_of(row: CsvPuzzle, created_ms: i64) -> PuzzleRecord {
    let mut themes: Vec<String> = row.themes.iter().map(|t| t.key().to_string()).collect();
    themes.sort();
    themes.dedup();
    PuzzleRecord {
        id: row.id,
        fen: row.fen,
        moves: row.moves,
        rating: Rating {
            rating: f64::from(row.rating),
            deviation: f64::from(row.deviation).clamp(Rating::MIN_DEVIATION, Rating::MAX_DEVIATION),
            volatility: Rating::INITIAL.volatility,
            games: 0,
        },
        plays: row.plays,
        themes,
        source: row.source,
        created_ms,
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
