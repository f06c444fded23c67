//! The generator: games in (finished games of the store, seeded self-play), puzzles out. Each
//! game goes through the finder ([`super::find`]), each line found through the verifier
//! ([`super::verify`]), each verified line is tagged ([`super::themes::tag`]) and given an
//! initial rating ([`initial_rating`]); the set is written as CSV ([`super::csv::write`]) with
//! the figures of the run ([`Figures`]). Everything is single-threaded and bounded by nodes,
//! so the same games and settings give the same CSV, byte for byte.
//!
//! `marseillais puzzles generate` (src/main.rs) runs it; docs/puzzles.md has the command that
//! made `assets/puzzles.csv`.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use super::analyst::{Analyst, EngineAnalyst};
use super::csv::{CsvPuzzle, puzzle_id};
use super::find::{Criteria, Found, find};
use super::selfplay;
use super::themes::{PuzzleKind, tag};
use super::verify::{FIND_NODES_START, verify};
use crate::rules::Game;
use crate::server::domain::rating::Rating;
use crate::server::game::GameState;
use crate::server::store::{GameStatus, SqliteStore, Store, StoreError, codec};

/// How hard the generator searches.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub criteria: Criteria,
    /// Nodes of each search of the verification (deeper than the finder's).
    pub verify_nodes: u64,
}

impl Settings {
    /// The settings of `--nodes K`: the finder's line searches at K, the scan at K/4 (it only
    /// points at candidates, which the line searches judge again), the verification at 4K.
    pub fn from_nodes(nodes: u64) -> Settings {
        let nodes = nodes.max(64);
        Settings {
            criteria: Criteria {
                scan_nodes: nodes / 4,
                pair_nodes: nodes,
                ..Criteria::default()
            },
            verify_nodes: nodes.saturating_mul(4),
        }
    }
}

/// A game to look for puzzles in, and where it comes from (the CSV's GameUrl).
#[derive(Clone, Debug)]
pub struct SourceGame {
    pub game: Game,
    pub source: String,
}

/// What a run did and what it cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    pub games: u64,
    /// Turn starts searched by the scan.
    pub positions: u64,
    /// Positions tried as puzzles.
    pub candidates: u64,
    /// Positions tried, per kind looked for.
    pub per_candidate_kind: BTreeMap<&'static str, u64>,
    /// Candidates that gave no line, per kind and reason (`advantage not-only`).
    pub per_miss: BTreeMap<String, u64>,
    /// Lines the finder made.
    pub found: u64,
    /// Lines the verifier dropped.
    pub refuted: u64,
    /// Puzzles kept.
    pub kept: u64,
    /// CPU time of the finder and the verifier (this thread's), and of the self-play.
    pub analysis_cpu: Duration,
    pub self_play_cpu: Duration,
    pub wall: Duration,
    /// Puzzles per theme key.
    pub per_theme: BTreeMap<&'static str, u64>,
    /// Puzzles per kind (mate, advantage, defence).
    pub per_kind: BTreeMap<&'static str, u64>,
}

impl Figures {
    /// Turn starts scanned per second of analysis CPU.
    pub fn positions_per_second(&self) -> f64 {
        per(self.positions as f64, self.analysis_cpu.as_secs_f64())
    }

    /// Puzzles kept per hour of CPU, self-play included.
    pub fn puzzles_per_cpu_hour(&self) -> f64 {
        per(
            self.kept as f64,
            (self.analysis_cpu + self.self_play_cpu).as_secs_f64() / 3600.0,
        )
    }

    /// The figures as docs/puzzles.md shows them.
    pub fn report(&self) -> String {
        let mut out = format!(
            "games {}, positions {}, candidates {}, found {}, refuted {}, kept {}\n\
             analysis cpu {:.1} s, self-play cpu {:.1} s, wall {:.1} s\n\
             positions analysed per second {:.1}, puzzles per CPU-hour {:.0}\n",
            self.games,
            self.positions,
            self.candidates,
            self.found,
            self.refuted,
            self.kept,
            self.analysis_cpu.as_secs_f64(),
            self.self_play_cpu.as_secs_f64(),
            self.wall.as_secs_f64(),
            self.positions_per_second(),
            self.puzzles_per_cpu_hour(),
        );
        let tried: Vec<String> = self
            .per_candidate_kind
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        out.push_str(&format!("candidates: {}\n", tried.join(", ")));
        let misses: Vec<String> = self
            .per_miss
            .iter()
            .map(|(miss, n)| format!("{miss} {n}"))
            .collect();
        out.push_str(&format!("no line: {}\n", misses.join(", ")));
        let kinds: Vec<String> = self
            .per_kind
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        out.push_str(&format!("kept: {}\n", kinds.join(", ")));
        let themes: Vec<String> = self
            .per_theme
            .iter()
            .map(|(theme, n)| format!("{theme} {n}"))
            .collect();
        out.push_str(&format!("themes: {}\n", themes.join(", ")));
        out
    }
}

fn per(count: f64, unit: f64) -> f64 {
    if unit > 0.0 { count / unit } else { 0.0 }
}

/// The initial rating of a puzzle, before anyone played it: 900, +250 per solver turn after
/// the first, +75 per doubling of the nodes the engine needed to find the first turn above
/// 32 ([`super::verify::Verified::find_nodes`]: a piece left hanging is seen in a depth-1
/// search, a quiet preparing S1 takes thousands of nodes), +100 for a defence (finding the one
/// turn that holds is harder than finding a win); rounded to 10, within 600..=2600. Glicko-2
/// moves it with the first plays (the deviation starts at 500, a new player's).
pub fn initial_rating(kind: PuzzleKind, solver_turns: usize, find_nodes: u64) -> i32 {
    let doublings = (find_nodes.max(FIND_NODES_START) as f64 / FIND_NODES_START as f64).log2();
    let turns = solver_turns.max(1) as f64 - 1.0;
    let defence = if kind == PuzzleKind::Defence {
        100.0
    } else {
        0.0
    };
    let rating = 900.0 + 250.0 * turns + 75.0 * doublings + defence;
    ((rating / 10.0).round() as i32 * 10).clamp(600, 2600)
}

/// The key of a kind in the figures.
pub fn kind_key(kind: PuzzleKind) -> &'static str {
    match kind {
        PuzzleKind::Mate => "mate",
        PuzzleKind::Advantage => "advantage",
        PuzzleKind::Defence => "defence",
    }
}

/// The generator's state over a run: the analysts, the positions tried, the puzzles kept.
pub struct Generator<A: Analyst> {
    finder: A,
    verifier: A,
    settings: Settings,
    seen: HashSet<String>,
    ids: HashSet<String>,
    puzzles: Vec<CsvPuzzle>,
    pub figures: Figures,
    /// Print every line found, kept or refuted, to stderr.
    pub verbose: bool,
}

impl Generator<EngineAnalyst> {
    /// The generator with our engine for both the finder and the verifier.
    pub fn with_engine(settings: Settings) -> Generator<EngineAnalyst> {
        Generator::new(EngineAnalyst::new(), EngineAnalyst::new(), settings)
    }
}

impl<A: Analyst> Generator<A> {
    /// The verifier is an analyst of its own, so that the finder's table never answers it.
    pub fn new(finder: A, verifier: A, settings: Settings) -> Generator<A> {
        Generator {
            finder,
            verifier,
            settings,
            seen: HashSet::new(),
            ids: HashSet::new(),
            puzzles: Vec::new(),
            figures: Figures::default(),
            verbose: false,
        }
    }

    /// Looks for puzzles in one game; keeps the verified ones.
    pub fn add_game(&mut self, game: &SourceGame) {
        let started = thread_cpu();
        let finding = find(
            &mut self.finder,
            &game.game,
            &self.settings.criteria,
            &mut self.seen,
        );
        self.figures.games += 1;
        self.figures.positions += finding.positions as u64;
        self.figures.candidates += finding.candidates.len() as u64;
        for kind in &finding.candidates {
            *self
                .figures
                .per_candidate_kind
                .entry(kind_key(*kind))
                .or_default() += 1;
        }
        for (kind, miss) in &finding.misses {
            let key = format!("{} {}", kind_key(*kind), miss.key());
            *self.figures.per_miss.entry(key).or_default() += 1;
        }
        for found in finding.found {
            self.figures.found += 1;
            self.keep(found, &game.source);
        }
        self.figures.analysis_cpu += thread_cpu().saturating_sub(started);
    }

    fn keep(&mut self, found: Found, source: &str) {
        let verified = match verify(
            &mut self.verifier,
            &found.line,
            found.kind,
            &self.settings.criteria,
            self.settings.verify_nodes,
        ) {
            Ok(verified) => verified,
            Err(refuted) => {
                self.figures.refuted += 1;
                if self.verbose {
                    eprintln!(
                        "refuted {} | {} | {} | {refuted}",
                        kind_key(found.kind),
                        found.line.start().fen(),
                        found.line.moves_text()
                    );
                }
                return;
            }
        };
        let fen = found.line.start().fen();
        let moves = found.line.moves_text();
        let id = puzzle_id(&fen, &moves);
        if !self.ids.insert(id.clone()) {
            return;
        }
        let themes = tag(&found.line, found.kind, found.win_chance_gain);
        for theme in &themes {
            *self.figures.per_theme.entry(theme.key()).or_default() += 1;
        }
        *self
            .figures
            .per_kind
            .entry(kind_key(found.kind))
            .or_default() += 1;
        self.figures.kept += 1;
        let rating = initial_rating(found.kind, found.line.solver_turns(), verified.find_nodes);
        if self.verbose {
            let keys: Vec<&str> = themes.iter().map(|theme| theme.key()).collect();
            eprintln!(
                "kept {id} {} {rating} ({} nodes) | {fen} | {moves} | {} | {source}",
                kind_key(found.kind),
                verified.find_nodes,
                keys.join(" ")
            );
        }
        self.puzzles.push(CsvPuzzle {
            id,
            fen,
            moves,
            rating,
            deviation: Rating::INITIAL.deviation as i32,
            popularity: 0,
            plays: 0,
            themes,
            source: source.to_string(),
        });
    }

    /// Self-play game `n` of `seed`, then its puzzles.
    pub fn add_self_play(&mut self, seed: u64, n: u64) {
        let started = thread_cpu();
        let played = selfplay::play(seed, n);
        self.figures.self_play_cpu += thread_cpu().saturating_sub(started);
        self.add_game(&SourceGame {
            game: played.game,
            source: played.source,
        });
    }

    /// The puzzles kept, by id (the store's order), and the figures.
    pub fn finish(mut self, wall: Duration) -> (Vec<CsvPuzzle>, Figures) {
        self.puzzles.sort_by(|a, b| a.id.cmp(&b.id));
        self.figures.wall = wall;
        (self.puzzles, self.figures)
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("the store: {0}")]
    Store(#[from] StoreError),
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot write {path}: {error}")]
    Write { path: String, error: std::io::Error },
}

/// The run of `marseillais puzzles generate`.
#[derive(Clone, Debug)]
pub struct Run<'a> {
    pub self_play: u64,
    pub seed: u64,
    pub data_dir: Option<&'a Path>,
    pub out: &'a Path,
    pub nodes: u64,
    pub verbose: bool,
}

/// Games per page read from the store.
const PAGE: u32 = 100;

/// Runs the generator over the store's finished games (when `data_dir` is given) and then
/// `self_play` games, writes the CSV, and answers the figures. Progress goes to stderr.
pub fn run(run: &Run<'_>) -> Result<Figures, GenerateError> {
    let wall = Instant::now();
    let mut generator = Generator::with_engine(Settings::from_nodes(run.nodes));
    generator.verbose = run.verbose;
    if let Some(dir) = run.data_dir {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(GenerateError::Runtime)?;
        let _context = runtime.enter();
        let store = SqliteStore::open(dir)?;
        let mut offset = 0;
        loop {
            let page = runtime.block_on(store.list(GameStatus::Finished, PAGE, offset))?;
            for listing in &page {
                let Some((_, texts)) = runtime.block_on(store.load_game(&listing.id))? else {
                    continue;
                };
                match stored_game(&listing.id, &texts) {
                    Some(game) => generator.add_game(&SourceGame {
                        game,
                        source: format!("/game/{}", listing.id),
                    }),
                    None => eprintln!("game {}: does not replay, left out", listing.id),
                }
            }
            if page.len() < PAGE as usize {
                break;
            }
            offset += PAGE;
        }
        eprintln!(
            "store: {} games, {} puzzles",
            generator.figures.games, generator.figures.kept
        );
    }
    for n in 0..run.self_play {
        generator.add_self_play(run.seed, n);
        if (n + 1) % 10 == 0 {
            let f = &generator.figures;
            eprintln!(
                "self-play {}/{}: {} positions, {} candidates, {} found, {} kept, {:.0} s",
                n + 1,
                run.self_play,
                f.positions,
                f.candidates,
                f.found,
                f.kept,
                wall.elapsed().as_secs_f64()
            );
        }
    }
    let (puzzles, figures) = generator.finish(wall.elapsed());
    let write_error = |error| GenerateError::Write {
        path: run.out.display().to_string(),
        error,
    };
    let mut file = std::io::BufWriter::new(std::fs::File::create(run.out).map_err(write_error)?);
    super::csv::write(&mut file, &puzzles).map_err(write_error)?;
    std::io::Write::flush(&mut file).map_err(write_error)?;
    Ok(figures)
}

/// A stored game's sub-moves as a [`Game`], or `None` when its events do not decode or replay.
pub fn stored_game(id: &str, texts: &[String]) -> Option<Game> {
    let events = texts
        .iter()
        .map(|text| codec::decode(text))
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    let state = GameState::replay(
        id,
        &events,
        Duration::from_secs(30),
        Instant::now(),
        |_, _, _| {},
    )
    .ok()?;
    Some(state.game().clone())
}

/// This thread's CPU time (Linux `/proc/thread-self/schedstat`, in nanoseconds); zero where
/// it cannot be read, and the figures then show no rate.
fn thread_cpu() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<u64>().ok())
        .map(Duration::from_nanos)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
