//! Tunes the evaluation's numbers by Texel's method (src/harness/texel.rs, docs/engine.md
//! "Tuning the evaluation"), in two steps:
//!
//! ```text
//! cargo run --release --bin tune -- gen --games 20000 --nodes 4000 --out /tmp/positions.txt
//! cargo run --release --bin tune -- fit --data /tmp/positions.txt > /tmp/weights.rs
//! ```
//!
//! `gen` plays level 8 against itself (the second player with continuation history, so that the
//! two games of a pair differ) at fixed nodes from the book's openings or from random ones
//! (reproducible from the seed at any concurrency) and writes the quiet positions of each game
//! with its result for White. `fit` fits K, then lowers the error by Texel's local search or,
//! with `--method gradient`, by gradient descent on the linearised evaluation, and prints the tuned `Weights` as Rust for `src/engine/weights.rs`; the change is kept only
//! if it wins its SPRT (docs/engine.md, "Changes and their tests").

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use marseillais::engine::Pace;
use marseillais::engine::weights::Weights;
use marseillais::harness::book::Book;
use marseillais::harness::game::Control;
use marseillais::harness::runner::{self, MatchTerms, Openings};
use marseillais::harness::sprt::GameScore;
use marseillais::harness::texel;
use marseillais::harness::texel_gradient::Linearised;
use marseillais::rules::Game;

#[derive(Parser)]
#[command(name = "tune", about = "Tunes the evaluation by Texel's method")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Self-play games; writes their quiet positions with the result (`FEN;result`).
    Gen {
        #[arg(long)]
        out: PathBuf,
        /// Games (rounded up to an even number: each opening twice, colours swapped; a second
        /// game that repeats the first is not sampled again).
        #[arg(long, default_value_t = 20_000)]
        games: u64,
        /// Node budget per sub-move.
        #[arg(long, default_value_t = 4_000)]
        nodes: u64,
        #[arg(long, default_value = "assets/openings.fen")]
        book: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Default: every core.
        #[arg(long)]
        concurrency: Option<usize>,
        /// Open each pair with this many random sub-moves from the initial position instead
        /// of the book: as many different games as pairs (the book's 3,000 openings give at
        /// most 6,000 different games at fixed nodes, about 330,000 positions). The random
        /// sub-moves themselves are not sampled.
        #[arg(long)]
        random_submoves: Option<u32>,
    },
    /// Fits the numbers to the positions; prints the tuned `Weights` as Rust.
    Fit {
        #[arg(long)]
        data: PathBuf,
        /// The first step of the local search, in centipawns (halved down to 1).
        #[arg(long, default_value_t = 8)]
        step: i32,
        /// Most rounds (each moves every number once at most).
        #[arg(long, default_value_t = 40)]
        rounds: u32,
        /// `local`: Texel's local search (every number, up to `--rounds`). `gradient`: the
        /// evaluation linearised once and Adam for `--epochs` (the king-danger numbers held):
        /// for millions of positions.
        #[arg(long, value_enum, default_value_t = Method::Local)]
        method: Method,
        /// Gradient only: full passes over the positions.
        #[arg(long, default_value_t = 2_000)]
        epochs: u32,
        /// Gradient only: Adam's learning rate (about the most a number moves in an epoch).
        #[arg(long, default_value_t = 1.0)]
        rate: f64,
    },
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Method {
    Local,
    Gradient,
}

fn main() -> ExitCode {
    let result = match Args::parse().command {
        Command::Gen {
            out,
            games,
            nodes,
            book,
            seed,
            concurrency,
            random_submoves,
        } => {
            let openings = match random_submoves {
                Some(submoves) => Ok(Openings::Random { submoves }),
                None => read_book(&book).map(Openings::Book),
            };
            openings.and_then(|openings| generate(&out, games, nodes, openings, seed, concurrency))
        }
        Command::Fit {
            data,
            step,
            rounds,
            method,
            epochs,
            rate,
        } => fit(&data, method, step, rounds, epochs, rate),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(2)
        }
    }
}

fn read_book(path: &PathBuf) -> Result<Book, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Book::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn generate(
    out: &PathBuf,
    games: u64,
    nodes: u64,
    openings: Openings,
    seed: u64,
    concurrency: Option<usize>,
) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let terms = MatchTerms {
        a: "level:8".parse().map_err(|e| format!("{e}"))?,
        // One switch apart (continuation history, within noise of the default in its SPRT),
        // so that the game with the colours swapped is a new game, not the first one replayed:
        // twice the positions for the same time.
        b: "level:8+conth".parse().map_err(|e| format!("{e}"))?,
        control: Control::Nodes(nodes.max(1)),
        pace: Pace::Engine,
        openings,
        seed,
        max_pairs: games.div_ceil(2),
        concurrency: concurrency.unwrap_or(cores).clamp(1, 256),
        max_submoves: 400,
        hash_mb: 8,
        sprt: None,
    };
    let file = File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut writer = BufWriter::new(file);
    let started = Instant::now();
    let mut written = 0u64;
    let mut failure = None;
    runner::run(&terms, |pair, _| {
        let start = *runner::pair_start(&terms, pair.index).position();
        for (k, record) in pair.games.iter().enumerate() {
            // A game that repeats the pair's first (a forced line) is not counted twice.
            if k == 1 && record.moves == pair.games[0].moves {
                continue;
            }
            let mut game = Game::new(start);
            for &mv in &record.moves {
                if game.play(mv).is_err() {
                    break;
                }
            }
            let a_score = match record.score {
                GameScore::Win => 1.0,
                GameScore::Draw => 0.5,
                GameScore::Loss => 0.0,
            };
            let white_score = if record.a_white {
                a_score
            } else {
                1.0 - a_score
            };
            for labelled in texel::sample(&game, white_score) {
                if failure.is_none()
                    && let Err(e) = writeln!(writer, "{labelled}")
                {
                    failure = Some(e.to_string());
                }
                written += 1;
            }
        }
        if (pair.index + 1) % 500 == 0 {
            eprintln!(
                "{} games, {written} positions, {:.0} s",
                (pair.index + 1) * 2,
                started.elapsed().as_secs_f64()
            );
        }
    });
    writer.flush().map_err(|e| e.to_string())?;
    if let Some(e) = failure {
        return Err(format!("{}: {e}", out.display()));
    }
    eprintln!(
        "{written} positions written to {} in {:.0} s",
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn fit(
    data: &PathBuf,
    method: Method,
    step: i32,
    rounds: u32,
    epochs: u32,
    rate: f64,
) -> Result<(), String> {
    if !(rate.is_finite() && rate > 0.0) {
        return Err(format!("--rate {rate}: expected a positive number"));
    }
    let text = std::fs::read_to_string(data).map_err(|e| format!("{}: {e}", data.display()))?;
    let data = texel::parse(&text).map_err(|e| e.to_string())?;
    if data.is_empty() {
        return Err("no positions".into());
    }
    let started = Instant::now();
    let start = Weights::DEFAULT;
    let k = texel::fit_k(&data, &start);
    let before = texel::error(&data, &start, k);
    eprintln!(
        "{} positions, K {k:.4}, error {before:.6} at the defaults",
        data.len()
    );
    let tuned = match method {
        Method::Local => texel::tune(&data, &start, k, step.clamp(1, 256), rounds, |r| {
            eprintln!(
                "round {}: step {}, {} numbers moved, error {:.6} ({:.0} s)",
                r.round,
                r.step,
                r.moved,
                r.error,
                started.elapsed().as_secs_f64()
            );
        }),
        Method::Gradient => {
            let model = Linearised::measure(&data, &start);
            eprintln!(
                "linearised: {} coefficients ({:.1} a position, {:.0} s)",
                model.coefficients(),
                model.coefficients() as f64 / model.len().max(1) as f64,
                started.elapsed().as_secs_f64()
            );
            model.fit(&start, k, epochs, rate, 100, |epoch, error| {
                eprintln!(
                    "epoch {epoch}: model error {error:.6} ({:.0} s)",
                    started.elapsed().as_secs_f64()
                );
            })
        }
    };
    if !texel::sane(&tuned) {
        return Err(format!("the fit left a piece worth nothing: {tuned:#?}"));
    }
    println!(
        "// Tuned by `tune fit` over {} positions: K {k:.4}, error {before:.6} -> {:.6}.",
        data.len(),
        texel::error(&data, &tuned, k)
    );
    println!("{tuned:#?}");
    Ok(())
}
