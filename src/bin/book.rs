//! Makes the match harness's opening book (src/harness/book.rs, docs/engine.md "Measuring a
//! change"): random games of a few turns, kept when the full engine's search scores them
//! within a margin of equal. The book shipped in `assets/openings.fen` was made by
//!
//! ```text
//! cargo run --release --bin book -- --out assets/openings.fen
//! ```
//!
//! with the defaults below; the same terms make the same file on any machine.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use marseillais::harness::book::{self, BookTerms};

#[derive(Parser)]
#[command(name = "book", about = "Makes a book of balanced Marseillais openings")]
struct Args {
    /// Where to write the book.
    #[arg(long)]
    out: PathBuf,
    /// Positions to keep.
    #[arg(long, default_value_t = 3_000)]
    count: usize,
    /// Fewest turns played from the initial position (each player's turns counted).
    #[arg(long, default_value_t = 4)]
    min_turns: u32,
    /// Most turns played.
    #[arg(long, default_value_t = 8)]
    max_turns: u32,
    /// Node budget of the search that scores a candidate.
    #[arg(long, default_value_t = 250_000)]
    nodes: u64,
    /// Kept when scored within this many centipawns of equal.
    #[arg(long, default_value_t = 60)]
    margin: i32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Default: every core (the result does not depend on it).
    #[arg(long)]
    threads: Option<usize>,
    /// Most candidates drawn.
    #[arg(long, default_value_t = 2_000_000)]
    max_candidates: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.min_turns == 0 || args.min_turns > args.max_turns || args.max_turns > 40 {
        eprintln!("error: expected 1 <= --min-turns <= --max-turns <= 40");
        return ExitCode::from(2);
    }
    let terms = BookTerms {
        count: args.count,
        min_turns: args.min_turns,
        max_turns: args.max_turns,
        nodes: args.nodes,
        margin_cp: args.margin.clamp(0, 10_000),
        seed: args.seed,
        threads: args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .clamp(1, 256),
        max_candidates: args.max_candidates,
    };
    let started = Instant::now();
    let (kept, drawn) = book::make(&terms);
    let header = format!(
        "Marseillais opening book: {} positions after {}-{} turns (both players' turns\n\
         counted), kept when level 8 scores them within +/-{} cp at {} nodes; {} candidates drawn.\n\
         Made by: cargo run --release --bin book -- --out {} --count {} --min-turns {} \
         --max-turns {} --nodes {} --margin {} --seed {}",
        kept.len(),
        terms.min_turns,
        terms.max_turns,
        terms.margin_cp,
        terms.nodes,
        drawn,
        args.out.display(),
        terms.count,
        terms.min_turns,
        terms.max_turns,
        terms.nodes,
        terms.margin_cp,
        terms.seed
    );
    if let Err(e) = std::fs::write(&args.out, book::write(&kept, &header)) {
        eprintln!("error: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    println!(
        "{} positions kept of {drawn} drawn in {:.0} s: {}",
        kept.len(),
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    ExitCode::SUCCESS
}
