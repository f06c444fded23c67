//! The computer opponent: a search over sub-moves ([`search`]), its
//! evaluation ([`eval`]), time management per turn ([`time`]), playing
//! levels ([`level`]), the UCI front end ([`uci`]) and, for the match
//! harness, an implementation of vchess's algorithm ([`vchess`]).
//!
//! [`Engine`] is the API: give it a [`Game`] (for repetitions) and
//! [`Limits`], get a [`SearchResult`] with one sub-move. It keeps what
//! carries over from one search to the next: the transposition table, the
//! history heuristic, and the plan of the turn made at S1 (which S2 it
//! expects to play, and how much of the turn's time is left for it).
//! See `docs/engine.md`.

pub mod bounds;
pub mod eval;
pub mod features;
pub mod level;
pub mod ordering;
pub mod search;
pub mod time;
pub mod tt;
pub mod uci;
pub mod vchess;
pub mod weights;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::rules::{Color, Game, Phase, Position, SubMove};

pub use features::{Feature, Features};
pub use level::Level;
use ordering::Heuristics;
use search::{MATE, MATE_BOUND, Search};
pub use time::Pace;
use time::{Budget, Clock, Signals};
use tt::Tt;

/// The deepest iteration when nothing else limits the search.
pub const MAX_DEPTH: i32 = 64;

/// What limits one search (the arguments of UCI `go`). With none set the
/// search runs to [`MAX_DEPTH`] or until stopped.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration, in sub-moves.
    pub depth: Option<u32>,
    /// Most nodes (positions visited, quiescence included).
    pub nodes: Option<u64>,
    /// Exactly this long for this sub-move.
    pub movetime: Option<Duration>,
    pub wtime: Option<Duration>,
    pub btime: Option<Duration>,
    pub winc: Duration,
    pub binc: Duration,
    /// Search until stopped, and report only when stopped.
    pub infinite: bool,
    /// How a clock is spent: as an engine (UCI, the harness) or as a person (the server).
    pub pace: Pace,
}

impl Limits {
    pub fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }

    pub fn depth(d: u32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    pub fn movetime(t: Duration) -> Limits {
        Limits {
            movetime: Some(t),
            ..Limits::default()
        }
    }

    fn clock(&self, side: Color) -> Clock {
        match side {
            Color::White => Clock {
                time: self.wtime,
                inc: self.winc,
            },
            Color::Black => Clock {
                time: self.btime,
                inc: self.binc,
            },
        }
    }
}

/// A score as UCI reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns for the side to move.
    Cp(i32),
    /// Mate in this many sub-moves (both sides' sub-moves, counted from the
    /// current position up to and including the mating one); negative when
    /// the side to move is the one mated.
    Mate(i32),
}

impl Score {
    pub fn from_internal(score: i32) -> Score {
        if score >= MATE_BOUND {
            Score::Mate(MATE - score)
        } else if score <= -MATE_BOUND {
            Score::Mate(-(MATE + score))
        } else {
            Score::Cp(score)
        }
    }
}

/// What the search reports after each iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<SubMove>,
}

impl SearchInfo {
    pub fn nps(&self) -> u64 {
        let micros = self.time.as_micros().max(1);
        (self.nodes as u128 * 1_000_000 / micros) as u64
    }
}

/// The answer of one search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// `None` only when the game is over (UCI `bestmove 0000`).
    pub best: Option<SubMove>,
    /// The last iteration's report.
    pub info: Option<SearchInfo>,
}

/// The S2 the S1 search expects to play, and the turn's time left for it. Opaque outside the
/// engine: a server that lends one engine to many games keeps each game's plan itself
/// ([`Engine::take_plan`], [`Engine::resume_plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnPlan {
    /// Hash of the position after the planned S1.
    expect: u64,
    reply: SubMove,
    left_of_turn: Option<Duration>,
}

/// The engine: a search and what it keeps between searches.
pub struct Engine {
    tt: Tt,
    heur: Heuristics,
    level: Level,
    seed: u64,
    features: Features,
    plan: Option<TurnPlan>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine::with_hash_mb(Tt::DEFAULT_MB)
    }

    /// An engine whose transposition table has `megabytes` from the start: what the server
    /// uses (a small table per game), without first allocating and filling the default one.
    pub fn with_hash_mb(megabytes: usize) -> Engine {
        Engine {
            tt: Tt::new(megabytes),
            heur: Heuristics::default(),
            level: Level::FULL,
            seed: 0,
            features: Features::default(),
            plan: None,
        }
    }

    /// Resizes (and clears) the transposition table.
    pub fn set_hash_mb(&mut self, megabytes: usize) {
        self.tt = Tt::new(megabytes);
    }

    pub fn set_level(&mut self, level: Level) {
        self.level = level;
    }

    pub fn level(&self) -> Level {
        self.level
    }

    /// The seed of the level noise (the harness varies it between games).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    pub fn set_features(&mut self, features: Features) {
        self.features = features;
    }

    /// Forgets everything learnt: a new game starts.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.heur.clear();
        self.plan = None;
    }

    /// The plan the last search made for the rest of its turn, taken out of the engine (a
    /// few bytes): the engine can search another game's position, and the plan be given back
    /// with [`Engine::resume_plan`] before this game's next search.
    pub fn take_plan(&mut self) -> Option<TurnPlan> {
        self.plan.take()
    }

    /// Gives back the plan a game's last search made ([`Engine::take_plan`]).
    pub fn resume_plan(&mut self, plan: Option<TurnPlan>) {
        self.plan = plan;
    }

    /// The S2 that the last S1 search planned, if `pos` is the position it
    /// expected after that S1.
    pub fn planned_reply(&self, pos: &Position) -> Option<SubMove> {
        self.plan
            .filter(|p| p.expect == pos.hash())
            .map(|p| p.reply)
            .filter(|&mv| pos.is_legal(mv))
    }

    /// Searches the current position of `game` and returns one sub-move.
    /// `stop` ends the search early (UCI `stop`); `on_info` is called after
    /// every iteration.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: impl FnMut(&SearchInfo),
    ) -> SearchResult {
        self.search_excluding(game, limits, &[], stop, on_info)
    }

    /// [`Engine::search`] with the root sub-moves `excluded` left out: the best of the other
    /// sub-moves and its score (the puzzle generator's only-move rule compares the best turn
    /// with the best of the rest). `best` is `None` when the game is over or every legal
    /// sub-move is excluded. The root's restricted score is never stored in the table.
    pub fn search_excluding(
        &mut self,
        game: &Game,
        limits: &Limits,
        excluded: &[SubMove],
        stop: &AtomicBool,
        mut on_info: impl FnMut(&SearchInfo),
    ) -> SearchResult {
        let started = Instant::now();
        let root = *game.position();
        let any_left = excluded.is_empty() && root.has_legal_submove()
            || root
                .legal_submoves()
                .iter()
                .any(|mv| !excluded.contains(mv));
        if game.outcome().is_some() || !any_left {
            self.plan = None;
            return SearchResult {
                best: None,
                info: None,
            };
        }
        let params = self.level.params();
        let left_of_turn = self
            .plan
            .filter(|p| p.expect == root.hash())
            .and_then(|p| p.left_of_turn);
        let budget: Budget = if limits.infinite {
            Budget::default()
        } else {
            time::budget(
                limits.movetime,
                limits.clock(root.side_to_move()),
                root.phase(),
                left_of_turn,
                limits.pace,
            )
        };
        // A person plays a lone legal sub-move at once; an engine still reports its score.
        let lone = limits.pace == Pace::Human
            && excluded.is_empty()
            && limits.movetime.is_none()
            && root.legal_submoves().len() == 1;
        let max_depth = [
            limits.depth.map(|d| d.clamp(1, MAX_DEPTH as u32) as i32),
            params.max_depth,
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(MAX_DEPTH);
        let max_nodes = [limits.nodes, params.max_nodes].into_iter().flatten().min();
        let history: Vec<u64> = game
            .positions()
            .iter()
            .rev()
            .skip(1)
            .take(root.halfmove_clock() as usize)
            .rev()
            .map(|p| if p.is_turn_start() { p.hash() } else { 0 })
            .collect();

        self.tt.new_search();
        self.heur.age(self.features);
        let mut search = Search::new(
            &mut self.tt,
            &mut self.heur,
            stop,
            budget.hard,
            max_nodes,
            params.noise,
            self.seed,
            self.features,
            history,
        );
        if !excluded.is_empty() {
            search.exclude_at_root(excluded);
        }
        let mut best: Option<search::Iteration> = None;
        let mut info = None;
        let mut signals = Signals::default();
        for depth in 1..=max_depth {
            let Some(iteration) = search.iterate(&root, depth) else {
                break;
            };
            let report = SearchInfo {
                depth: depth as u32,
                seldepth: (search.seldepth as u32).max(depth as u32),
                score: Score::from_internal(iteration.score),
                nodes: search.nodes,
                time: search.start.elapsed(),
                pv: iteration.pv.clone(),
            };
            on_info(&report);
            info = Some(report);
            let mate_found =
                iteration.score.abs() >= MATE_BOUND && (MATE - iteration.score.abs()) < depth;
            signals = next_signals(signals, best.as_ref(), &iteration);
            best = Some(iteration);
            if search.aborted || mate_found && !limits.infinite || lone {
                break;
            }
            if !time::next_iteration(search.start.elapsed(), &budget, signals, limits.pace) {
                break;
            }
        }
        drop(search);
        if limits.infinite {
            // UCI: the answer of `go infinite` waits for `stop`. Bounded by
            // the caller, who always sends stop; the sleep keeps it cheap.
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        let Some(best) = best else {
            // Unreachable in practice (depth 1 is never aborted); still a move.
            let mv = root
                .legal_submoves()
                .into_iter()
                .find(|mv| !excluded.contains(mv));
            return SearchResult {
                best: mv,
                info: None,
            };
        };
        let mv = best.pv[0];
        self.plan = None;
        if root.phase() == Phase::First && best.pv.len() >= 2 {
            let after = root.play_unchecked(mv);
            if after.side_to_move() == root.side_to_move() {
                self.plan = Some(TurnPlan {
                    expect: after.hash(),
                    reply: best.pv[1],
                    left_of_turn: budget
                        .turn
                        .map(|turn| turn.saturating_sub(started.elapsed())),
                });
            }
        }
        SearchResult {
            best: Some(mv),
            info,
        }
    }
}

/// The signals after `iteration`, from the ones before and the previous iteration.
fn next_signals(
    before: Signals,
    previous: Option<&search::Iteration>,
    iteration: &search::Iteration,
) -> Signals {
    let Some(previous) = previous else {
        return Signals {
            stable_iterations: 1,
            score_drop: 0,
        };
    };
    let same = previous.pv.first() == iteration.pv.first();
    Signals {
        stable_iterations: if same {
            before.stable_iterations + 1
        } else {
            1
        },
        score_drop: previous.score.saturating_sub(iteration.score).max(0),
    }
}
