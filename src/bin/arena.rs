//! The match harness's command line: bounded, seeded matches between engine levels and the
//! vchess reference algorithm, either of a fixed number of games or decided by an SPRT.
//!
//! ```text
//! cargo run --release --bin arena -- --a level:8 --b level:7 --games 40 --nodes 150000
//! cargo run --release --bin arena -- --a level:8 --b vchess --games 40 --movetime 500
//! cargo run --release --bin arena -- --sprt --a level:8+rfp --b level:8 \
//!     --elo0 0 --elo1 5 --book assets/openings.fen --tc 10+0.1
//! ```
//!
//! Each pair of games starts from the same opening (from `--book`, or `--opening` random
//! sub-moves drawn from the seed), once with each side as White. A game ends by the rules,
//! by a threefold repetition (a draw), by a flag under `--tc`, or after `--max-submoves`
//! sub-moves (a draw). With `--nodes` every game is exactly reproducible from `--seed`, at
//! any `--concurrency`. See docs/engine.md ("Measuring a change") and src/harness/.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use marseillais::engine::Pace;
use marseillais::harness::book::Book;
use marseillais::harness::game::{Control, Ending, TimeControl};
use marseillais::harness::player::{Player, Spec};
use marseillais::harness::runner::{self, MatchTerms, Openings, PairRecord, Standing};
use marseillais::harness::sprt::{GameScore, Sprt};
use marseillais::rules::Color;

#[derive(Parser)]
#[command(
    name = "arena",
    about = "Bounded, seeded matches between engine levels and vchess, fixed or decided by SPRT"
)]
struct Args {
    /// First player (the change under test): `level:N` (1-8) with `+name`/`-name` switching a
    /// technique (lmr, nmp, rfp, lmp, asp, fp, se, caph, conth) on or off against the defaults, `vchess`, or
    /// `uci:PATH` (another build's binary, run as `PATH uci`).
    #[arg(long, default_value = "level:8")]
    a: Spec,
    /// Second player (the base), same forms.
    #[arg(long, default_value = "vchess")]
    b: Spec,
    /// Number of games of a fixed match (rounded up to an even number: each opening twice).
    #[arg(long, default_value_t = 40)]
    games: u32,
    /// Node budget per sub-move for engine players.
    #[arg(long, default_value_t = 150_000)]
    nodes: u64,
    /// Time per sub-move in milliseconds (replaces --nodes).
    #[arg(long)]
    movetime: Option<u64>,
    /// A clock per game, BASE+INC in seconds, such as 10+0.1 (replaces --nodes).
    #[arg(long, conflicts_with = "movetime")]
    tc: Option<TimeControl>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random sub-moves of the opening from the initial position, when no --book.
    #[arg(long, default_value_t = 5)]
    opening: u32,
    /// An opening book (one FEN a line; `book` makes one).
    #[arg(long)]
    book: Option<PathBuf>,
    /// A game still going after this many sub-moves is a draw.
    #[arg(long, default_value_t = 300)]
    max_submoves: usize,
    /// Games played at once; default: every core.
    #[arg(long)]
    concurrency: Option<usize>,
    /// Each engine's transposition table, MiB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// Decide by a sequential probability ratio test instead of a fixed number of games.
    #[arg(long)]
    sprt: bool,
    /// The SPRT's null hypothesis, logistic Elo of --a over --b.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    elo0: f64,
    /// The SPRT's alternative hypothesis.
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    elo1: f64,
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Most pairs an SPRT plays before it stops undecided.
    #[arg(long, default_value_t = 20_000)]
    max_pairs: u64,
    /// How a clock is spent: `engine` (strength, as UCI) or `human` (the server's pace).
    #[arg(long, value_enum, default_value_t = PaceArg::Engine)]
    pace: PaceArg,
    /// Print every game's moves.
    #[arg(long)]
    verbose: bool,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum PaceArg {
    Engine,
    Human,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match terms(&args) {
        Ok(terms) => {
            play(&args, &terms);
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(2)
        }
    }
}

fn terms(args: &Args) -> Result<MatchTerms, String> {
    let control = match (args.tc, args.movetime) {
        (Some(tc), _) => Control::Clock(tc),
        (None, Some(ms)) => Control::MoveTime(Duration::from_millis(ms)),
        (None, None) => Control::Nodes(args.nodes),
    };
    let openings = match &args.book {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Openings::Book(Book::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => Openings::Random {
            submoves: args.opening,
        },
    };
    let sprt = if args.sprt {
        Some(Sprt::new(args.elo0, args.elo1, args.alpha, args.beta).map_err(|e| e.to_string())?)
    } else {
        None
    };
    for spec in [&args.a, &args.b] {
        Player::check(spec).map_err(|e| e.to_string())?;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(MatchTerms {
        a: args.a.clone(),
        b: args.b.clone(),
        control,
        pace: match args.pace {
            PaceArg::Engine => Pace::Engine,
            PaceArg::Human => Pace::Human,
        },
        openings,
        seed: args.seed,
        max_pairs: if args.sprt {
            args.max_pairs
        } else {
            u64::from(args.games.div_ceil(2))
        },
        concurrency: args.concurrency.unwrap_or(cores).clamp(1, 256),
        max_submoves: args.max_submoves,
        hash_mb: args.hash.clamp(1, 4096),
        sprt,
    })
}

fn play(args: &Args, terms: &MatchTerms) {
    let started = Instant::now();
    let mut pace = PaceTally::default();
    let mut forfeits = [0u64; 2];
    let standing = runner::run(terms, |pair, standing| {
        pace.add(pair);
        for game in &pair.games {
            if let Ending::Forfeit(side, _) = game.ending {
                let by_a = (side == Color::White) == game.a_white;
                forfeits[usize::from(!by_a)] += 1;
            }
        }
        if !args.sprt || args.verbose {
            print_games(args, pair);
        }
        if args.sprt && (pair.index + 1) % 10 == 0 {
            println!("{}", status(args, standing));
        }
    });
    let games = standing.wins + standing.draws + standing.losses;
    let score = standing.wins as f64 + standing.draws as f64 / 2.0;
    println!(
        "{} vs {}: +{} ={} -{} of {games}: {:.1}% ({}, seed {}, {:.0} s)",
        args.a,
        args.b,
        standing.wins,
        standing.draws,
        standing.losses,
        100.0 * score / games.max(1) as f64,
        terms.control,
        args.seed,
        started.elapsed().as_secs_f64()
    );
    println!("{}", status(args, &standing));
    if forfeits != [0, 0] {
        println!(
            "forfeits (no move or an illegal one): {} {}, {} {}",
            args.a, forfeits[0], args.b, forfeits[1]
        );
    }
    if matches!(terms.control, Control::Clock(_)) {
        println!("{}", pace.report(&args.a.to_string(), true));
        println!("{}", pace.report(&args.b.to_string(), false));
    }
    if let Some(test) = terms.sprt {
        let verdict = standing
            .verdict
            .map_or("undecided (--max-pairs reached)".to_string(), |v| {
                v.to_string()
            });
        println!(
            "SPRT [{}, {}] alpha {} beta {}: {verdict}",
            test.elo0(),
            test.elo1(),
            args.alpha,
            args.beta
        );
    }
}

/// The standing's line: Elo with its 95 % interval, LOS, LLR with its bounds, the pairs.
fn status(args: &Args, standing: &Standing) -> String {
    let e = standing.estimate;
    let mut line = format!(
        "Elo {:+.1} +/- {:.1} (95%), LOS {:.1}%, pairs {} {}",
        e.elo,
        e.error95,
        100.0 * e.los,
        standing.results.pairs(),
        standing.results
    );
    if let Some(llr) = standing.llr {
        let (lower, upper) = Sprt::new(args.elo0, args.elo1, args.alpha, args.beta)
            .map(|t| t.bounds())
            .unwrap_or((f64::NAN, f64::NAN));
        line.push_str(&format!(", LLR {llr:.2} ({lower:.2}, {upper:.2})"));
    }
    line
}

fn print_games(args: &Args, pair: &PairRecord) {
    for (k, game) in pair.games.iter().enumerate() {
        let score = match game.score {
            GameScore::Win => "1",
            GameScore::Draw => "0.5",
            GameScore::Loss => "0",
        };
        println!(
            "game {:>3}: {} as {}: {} ({}, {} sub-moves)",
            pair.index * 2 + k as u64 + 1,
            args.a,
            if game.a_white { "White" } else { "Black" },
            score,
            game.ending,
            game.moves.len()
        );
        if args.verbose {
            let moves: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
            println!("  {}", moves.join(" "));
        }
    }
}

/// Each player's turn times and time losses, for `--tc` matches (docs/engine.md, "Time
/// management").
#[derive(Default)]
struct PaceTally {
    /// Turn times of `--a` (index 0) and `--b` (index 1).
    turns: [Vec<Duration>; 2],
    flags: [u32; 2],
}

impl PaceTally {
    fn add(&mut self, pair: &PairRecord) {
        for game in &pair.games {
            for &(by_a, time) in &game.turns {
                self.turns[usize::from(!by_a)].push(time);
            }
            if let Ending::Time(side) = game.ending {
                let a_flagged = (side == Color::White) == game.a_white;
                self.flags[usize::from(!a_flagged)] += 1;
            }
        }
    }

    fn report(&self, name: &str, a: bool) -> String {
        let index = usize::from(!a);
        let mut times = self.turns[index].clone();
        times.sort();
        let at = |q: f64| {
            times
                .get(((times.len() as f64 - 1.0) * q).round() as usize)
                .map_or(0.0, |t| t.as_secs_f64())
        };
        format!(
            "{name}: {} turns, median {:.2} s, p90 {:.2} s, p99 {:.2} s, max {:.2} s; lost on time {}",
            times.len(),
            at(0.5),
            at(0.9),
            at(0.99),
            at(1.0),
            self.flags[index]
        )
    }
}
