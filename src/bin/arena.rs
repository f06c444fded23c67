//! The match harness: bounded, seeded, reproducible matches between engine
//! levels and the vchess reference algorithm.
//!
//! ```text
//! cargo run --release --bin arena -- --a level:8 --b level:7 --games 40 --nodes 150000
//! cargo run --release --bin arena -- --a level:8 --b vchess --games 40 --movetime 500
//! ```
//!
//! Each pair of games starts from the same opening (a few random sub-moves
//! drawn from the seed), once with each side as White. A game ends by the
//! rules (checkmate, stalemates, insufficient material, fivefold, 75-move
//! rule), by a threefold repetition (counted as a draw), or after
//! `--max-submoves` sub-moves (adjudicated a draw). With `--nodes` and no
//! `--movetime` every game is exactly reproducible from `--seed`.
//! See docs/performance.md for the figures and docs/engine.md for the levels.

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use clap::Parser;
use marseillais::engine::level::splitmix;
use marseillais::engine::vchess::Vchess;
use marseillais::engine::{Engine, Features, Level, Limits};
use marseillais::rules::{Color, Game, Position};

#[derive(Parser)]
#[command(
    name = "arena",
    about = "Bounded, seeded matches between engine levels and vchess"
)]
struct Args {
    /// First player: `level:N` (1-8), `level:N+lmr`, or `vchess`.
    #[arg(long, default_value = "level:8")]
    a: String,
    /// Second player, same forms.
    #[arg(long, default_value = "vchess")]
    b: String,
    /// Number of games (rounded up to an even number: each opening twice).
    #[arg(long, default_value_t = 40)]
    games: u32,
    /// Node budget per sub-move for engine players.
    #[arg(long, default_value_t = 150_000)]
    nodes: u64,
    /// Time per sub-move in milliseconds for engine players (replaces --nodes).
    #[arg(long)]
    movetime: Option<u64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random sub-moves of the opening (from the initial position).
    #[arg(long, default_value_t = 5)]
    opening: u32,
    /// A game still going after this many sub-moves is a draw.
    #[arg(long, default_value_t = 300)]
    max_submoves: usize,
    /// Print every game's moves.
    #[arg(long)]
    verbose: bool,
}

/// Why a player name was refused.
#[derive(Debug, thiserror::Error)]
enum SpecError {
    #[error("'{0}': expected level:N (1-8), level:N+lmr or vchess")]
    Bad(String),
}

#[derive(Clone, Copy, Debug)]
enum Spec {
    Level(Level, Features),
    Vchess,
}

fn parse_spec(text: &str) -> Result<Spec, SpecError> {
    if text == "vchess" {
        return Ok(Spec::Vchess);
    }
    let bad = || SpecError::Bad(text.to_string());
    let rest = text.strip_prefix("level:").ok_or_else(bad)?;
    let (number, lmr) = match rest.strip_suffix("+lmr") {
        Some(n) => (n, true),
        None => (rest, false),
    };
    let n: i64 = number.parse().map_err(|_| bad())?;
    if !(1..=8).contains(&n) {
        return Err(bad());
    }
    Ok(Spec::Level(Level::new(n), Features { lmr }))
}

enum Player {
    Engine(Box<Engine>),
    Vchess(Vchess),
}

impl Player {
    fn new(spec: Spec, seed: u64) -> Player {
        match spec {
            Spec::Level(level, features) => {
                let mut engine = Engine::new();
                engine.set_level(level);
                engine.set_features(features);
                engine.set_seed(seed);
                Player::Engine(Box::new(engine))
            }
            Spec::Vchess => Player::Vchess(Vchess::new(seed)),
        }
    }

    fn choose(&mut self, game: &Game, limits: &Limits) -> Option<marseillais::rules::SubMove> {
        match self {
            Player::Engine(engine) => {
                let stop = AtomicBool::new(false);
                engine.search(game, limits, &stop, |_| {}).best
            }
            Player::Vchess(v) => v.choose(game.position()),
        }
    }
}

/// A random opening of `plies` sub-moves, the same for both games of a pair.
/// Openings after which the side to move mates at once are drawn again
/// (bounded): they would decide the game before either player chose a move.
fn opening(seed: u64, plies: u32) -> Game {
    let mut rng = seed;
    for _ in 0..100 {
        rng = splitmix(rng);
        let game = random_opening(rng, plies);
        if game.outcome().is_none() && !mates_in_one_turn(game.position()) {
            return game;
        }
    }
    Game::new(Position::initial())
}

/// Brute force: does the side to move have a turn that checkmates?
fn mates_in_one_turn(position: &Position) -> bool {
    let us = position.side_to_move();
    let mated = |p: &Position| p.is_check() && !p.has_legal_submove();
    position.legal_submoves().into_iter().any(|s1| {
        let after = position.play_unchecked(s1);
        if after.side_to_move() != us {
            mated(&after)
        } else {
            after
                .legal_submoves()
                .into_iter()
                .any(|s2| mated(&after.play_unchecked(s2)))
        }
    })
}

fn random_opening(seed: u64, plies: u32) -> Game {
    let mut game = Game::new(Position::initial());
    let mut rng = seed;
    for _ in 0..plies {
        let moves = game.position().legal_submoves();
        if moves.is_empty() || game.outcome().is_some() {
            break;
        }
        rng = splitmix(rng);
        let mv = moves[(rng % moves.len() as u64) as usize];
        if game.play(mv).is_err() {
            break;
        }
    }
    game
}

/// 1.0 when White won, 0.5 for a draw, 0.0 when Black won; and why.
fn play_game(
    mut game: Game,
    white: &mut Player,
    black: &mut Player,
    limits: &Limits,
    max_submoves: usize,
) -> (f64, String, Game) {
    loop {
        if let Some(outcome) = game.outcome() {
            let score = match outcome.winner() {
                Some(Color::White) => 1.0,
                Some(Color::Black) => 0.0,
                None => 0.5,
            };
            return (score, outcome.to_string(), game);
        }
        if game.position().is_turn_start() && game.repetition_count() >= 3 {
            return (0.5, "threefold repetition".into(), game);
        }
        if game.submove_count() >= max_submoves {
            return (0.5, "adjudicated: move limit".into(), game);
        }
        let mover = match game.position().side_to_move() {
            Color::White => &mut *white,
            Color::Black => &mut *black,
        };
        let Some(mv) = mover.choose(&game, limits) else {
            return (0.5, "no move returned".into(), game);
        };
        if game.play(mv).is_err() {
            // An illegal move loses: it would be a bug in the player.
            let score = match game.position().side_to_move() {
                Color::White => 0.0,
                Color::Black => 1.0,
            };
            return (score, format!("illegal move {mv}"), game);
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let (a, b) = match (parse_spec(&args.a), parse_spec(&args.b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let limits = match args.movetime {
        Some(ms) => Limits::movetime(Duration::from_millis(ms)),
        None => Limits::nodes(args.nodes),
    };
    let pairs = args.games.div_ceil(2);
    let started = Instant::now();
    let (mut wins, mut draws, mut losses) = (0u32, 0u32, 0u32);
    for pair in 0..pairs {
        let pair_seed = splitmix(args.seed ^ (pair as u64).wrapping_mul(0xA24B_AED4_963E_E407));
        let start = opening(pair_seed, args.opening);
        for a_is_white in [true, false] {
            let game_seed = splitmix(pair_seed ^ a_is_white as u64);
            let mut pa = Player::new(a, game_seed);
            let mut pb = Player::new(b, splitmix(game_seed));
            let (white, black) = if a_is_white {
                (&mut pa, &mut pb)
            } else {
                (&mut pb, &mut pa)
            };
            let (white_score, reason, game) =
                play_game(start.clone(), white, black, &limits, args.max_submoves);
            let a_score = if a_is_white {
                white_score
            } else {
                1.0 - white_score
            };
            match a_score {
                s if s > 0.75 => wins += 1,
                s if s < 0.25 => losses += 1,
                _ => draws += 1,
            }
            println!(
                "game {:>3}: {} as {}: {} ({}, {} sub-moves)",
                pair * 2 + u32::from(!a_is_white) + 1,
                args.a,
                if a_is_white { "White" } else { "Black" },
                a_score,
                reason,
                game.submove_count()
            );
            if args.verbose {
                let moves: Vec<String> = game.submoves().iter().map(|m| m.to_string()).collect();
                println!("  {}", moves.join(" "));
            }
        }
    }
    let games = wins + draws + losses;
    let score = wins as f64 + draws as f64 / 2.0;
    println!(
        "{} vs {}: +{wins} ={draws} -{losses} of {games}: {:.1}% ({} per sub-move, seed {}, {:.0} s)",
        args.a,
        args.b,
        100.0 * score / games.max(1) as f64,
        match args.movetime {
            Some(ms) => format!("{ms} ms"),
            None => format!("{} nodes", args.nodes),
        },
        args.seed,
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
