//! The `marseillais` binary: the game server (default) and command-line tools.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use marseillais::rules::perft::{divide, perft};
use marseillais::rules::{Position, Rules};

/// mimalloc instead of the system allocator: a sub-move on the server allocates and frees
/// dozens of small, short-lived blocks on several threads (frames, messages, SQLite's
/// statements), and glibc's malloc/free/consolidate took about 10 % of the server's CPU at
/// saturation (docs/performance.md, "After the write/commit work").
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "marseillais",
    version,
    about = "Marseillais chess: server and tools",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Without a subcommand the server runs, and takes the `serve` flags here.
    #[command(flatten)]
    serve: marseillais::server::config::ServeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Run the game server (the default when no subcommand is given).
    Serve(Box<marseillais::server::config::ServeArgs>),
    /// Count the sequences of exactly DEPTH legal sub-moves.
    Perft {
        depth: u32,
        /// Extended FEN to start from (default: the initial position).
        #[arg(long)]
        fen: Option<String>,
        /// One move per turn and ordinary en passant, to compare with published numbers.
        #[arg(long)]
        orthodox: bool,
        /// Print `uci: count` per first sub-move, sorted, then the total.
        #[arg(long)]
        divide: bool,
    },
    /// Play as a UCI engine on stdin/stdout (see docs/engine.md).
    Uci,
    /// Copy a single-node SQLite database into an empty PostgreSQL database, verified (row
    /// counts per table and a SHA-256 per game's events on both sides). Exit 0: copied and
    /// verified; 1: a verification mismatch; 2: not done (bad arguments, unreachable, a
    /// non-empty target, ...).
    Migrate {
        /// The source: sqlite:DIR (the server's --data-dir).
        #[arg(long)]
        from: marseillais::server::config::StoreLocation,
        /// The target: postgres://user:password@host:port/database.
        #[arg(long)]
        to: marseillais::server::config::StoreLocation,
        /// Add to a target that already holds rows (a row that collides fails the whole copy).
        #[arg(long)]
        allow_non_empty: bool,
    },
    /// Moderator role (see docs/moderation.md): given and taken here only, never by the web.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// Comma-PGN tools.
    Pgn {
        #[command(subcommand)]
        command: PgnCommand,
    },
    /// Puzzle tools (see docs/puzzles.md).
    Puzzles {
        #[command(subcommand)]
        command: PuzzlesCommand,
    },
}

#[derive(Subcommand)]
enum PuzzlesCommand {
    /// Find puzzles in the finished games of a store and in seeded engine self-play, verify
    /// them deeper, tag and rate them, and write them as CSV; prints the figures. Every search
    /// is bounded by nodes: the same arguments write the same file.
    Generate {
        /// Self-play games to play and search (after the store's games).
        #[arg(long, default_value_t = 0)]
        self_play: u64,
        /// The self-play seed: game N of seed S is always the same game.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also search the finished games of the SQLite store in this directory.
        #[arg(long)]
        data_dir: Option<std::path::PathBuf>,
        /// The CSV to write.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Nodes of each search that builds a line (the scan searches half, the verification
        /// four times as many).
        #[arg(long, default_value_t = 50_000)]
        nodes: u64,
        /// Print every line found (kept or refuted, and why) to stderr.
        #[arg(long)]
        verbose: bool,
    },
    /// Add the puzzles of a CSV (assets/puzzles.csv, or what `generate` wrote) to the store; a
    /// puzzle whose id is already there is left alone. Prints how many were new.
    Import {
        file: std::path::PathBuf,
        #[command(flatten)]
        store: PuzzleStoreArgs,
    },
    /// Write every stored puzzle, with its current rating and plays, as CSV.
    Export {
        /// The CSV to write.
        #[arg(long)]
        out: std::path::PathBuf,
        #[command(flatten)]
        store: PuzzleStoreArgs,
    },
}

/// The store of `puzzles import` and `puzzles export`: the server's flags.
#[derive(clap::Args)]
struct PuzzleStoreArgs {
    /// Directory of the SQLite database (the same as `--store sqlite:DIR`).
    #[arg(long, env = "MARSEILLAIS_DATA_DIR", default_value = "./data")]
    data_dir: std::path::PathBuf,
    /// `sqlite:DIR` or `postgres://user:password@host:port/database`; wins over `--data-dir`.
    #[arg(long, env = "MARSEILLAIS_STORE")]
    store: Option<marseillais::server::config::StoreLocation>,
}

impl PuzzleStoreArgs {
    fn location(self) -> marseillais::server::config::StoreLocation {
        self.store
            .unwrap_or(marseillais::server::config::StoreLocation::Sqlite(
                self.data_dir,
            ))
    }
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Make the user NAME a moderator (logged in the moderation log as `console`).
    GrantMod {
        name: String,
        #[command(flatten)]
        store: PuzzleStoreArgs,
    },
    /// Take the moderator role from the user NAME.
    RevokeMod {
        name: String,
        #[command(flatten)]
        store: PuzzleStoreArgs,
    },
}

#[derive(Subcommand)]
enum PgnCommand {
    /// Validate every game in a comma-PGN file strictly; exit 1 if any is bad.
    Check { file: std::path::PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => marseillais::server::run_blocking(cli.serve),
        Some(Command::Serve(args)) => marseillais::server::run_blocking(*args),
        Some(Command::Perft {
            depth,
            fen,
            orthodox,
            divide: split,
        }) => run_perft(depth, fen.as_deref(), orthodox, split),
        Some(Command::Pgn {
            command: PgnCommand::Check { file },
        }) => run_pgn_check(&file),
        Some(Command::Migrate {
            from,
            to,
            allow_non_empty,
        }) => run_migrate(from, to, allow_non_empty),
        Some(Command::Puzzles {
            command:
                PuzzlesCommand::Generate {
                    self_play,
                    seed,
                    data_dir,
                    out,
                    nodes,
                    verbose,
                },
        }) => run_puzzles_generate(&marseillais::server::puzzles::generate::Run {
            self_play,
            seed,
            data_dir: data_dir.as_deref(),
            out: &out,
            nodes,
            verbose,
        }),
        Some(Command::Puzzles {
            command: PuzzlesCommand::Import { file, store },
        }) => run_puzzles_import(&file, store.location()),
        Some(Command::Puzzles {
            command: PuzzlesCommand::Export { out, store },
        }) => run_puzzles_export(&out, store.location()),
        Some(Command::Admin {
            command: AdminCommand::GrantMod { name, store },
        }) => run_admin(&name, RoleChange::Grant, store.location()),
        Some(Command::Admin {
            command: AdminCommand::RevokeMod { name, store },
        }) => run_admin(&name, RoleChange::Revoke, store.location()),
        Some(Command::Uci) => {
            marseillais::engine::uci::run(std::io::stdin().lock(), Box::new(std::io::stdout()));
            ExitCode::SUCCESS
        }
    }
}

fn run_puzzles_generate(run: &marseillais::server::puzzles::generate::Run<'_>) -> ExitCode {
    match marseillais::server::puzzles::generate::run(run) {
        Ok(figures) => {
            print!("{}", figures.report());
            println!("written: {}", run.out.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

fn run_puzzles_import(
    file: &std::path::Path,
    location: marseillais::server::config::StoreLocation,
) -> ExitCode {
    use marseillais::server::puzzles::transfer;
    let result = runtime().and_then(|runtime| {
        runtime.block_on(async {
            let store = transfer::open(&location).await.map_err(|e| e.to_string())?;
            let now_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
            transfer::import(store.as_ref(), file, now_ms)
                .await
                .map_err(|e| e.to_string())
        })
    });
    match result {
        Ok((read, inserted)) => {
            println!("{read} puzzles read, {inserted} new");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

fn run_puzzles_export(
    out: &std::path::Path,
    location: marseillais::server::config::StoreLocation,
) -> ExitCode {
    use marseillais::server::puzzles::{csv, transfer};
    let result = runtime().and_then(|runtime| {
        runtime.block_on(async {
            let store = transfer::open(&location).await.map_err(|e| e.to_string())?;
            transfer::export(store.as_ref())
                .await
                .map_err(|e| e.to_string())
        })
    });
    let rows = match result {
        Ok(rows) => rows,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let written = std::fs::File::create(out).and_then(|file| {
        let mut file = std::io::BufWriter::new(file);
        csv::write(&mut file, &rows)?;
        std::io::Write::flush(&mut file)
    });
    match written {
        Ok(()) => {
            println!("{} puzzles written to {}", rows.len(), out.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {}: {error}", out.display());
            ExitCode::from(2)
        }
    }
}

use marseillais::server::safety::moderation::cli::RoleChange;

/// `admin grant-mod` / `revoke-mod`: exit 0 done, 2 not done (no such user, no store).
fn run_admin(
    name: &str,
    change: RoleChange,
    location: marseillais::server::config::StoreLocation,
) -> ExitCode {
    use marseillais::server::puzzles::transfer;
    use marseillais::server::safety::moderation::cli;
    let result = runtime().and_then(|runtime| {
        runtime.block_on(async {
            let store = transfer::open(&location).await.map_err(|e| e.to_string())?;
            let done = cli::change_role(store.as_ref(), name, change, now_ms()).await;
            store.close().await;
            done.map_err(|e| e.to_string())
        })
    });
    match result {
        Ok(said) => {
            println!("{said}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Runtime::new().map_err(|e| format!("cannot start the runtime: {e}"))
}

fn run_migrate(
    from: marseillais::server::config::StoreLocation,
    to: marseillais::server::config::StoreLocation,
    allow_non_empty: bool,
) -> ExitCode {
    use marseillais::server::config::StoreLocation;
    let (StoreLocation::Sqlite(dir), StoreLocation::Postgres(url)) = (from, to) else {
        eprintln!("error: migrate copies --from sqlite:DIR --to postgres://...");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let outcome = runtime.block_on(marseillais::server::store::migrate::migrate(
        &dir,
        &url,
        allow_non_empty,
    ));
    let report = match outcome {
        Ok(report) => report,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    println!("{} -> {url}", dir.display());
    for count in &report.tables {
        let mark = if count.source == count.copied {
            "ok"
        } else {
            "MISMATCH"
        };
        println!(
            "  {:<16} {:>10} rows, {:>10} copied  {mark}",
            count.table, count.source, count.copied
        );
    }
    println!(
        "  {} games checked by SHA-256 of their events, {} mismatched",
        report.games,
        report.mismatched_games.len()
    );
    for game in &report.mismatched_games {
        println!("  MISMATCH game {game}");
    }
    println!(
        "  {} puzzles checked by SHA-256 of their rows, {} mismatched",
        report.puzzles,
        report.mismatched_puzzles.len()
    );
    for puzzle in &report.mismatched_puzzles {
        println!("  MISMATCH puzzle {puzzle}");
    }
    if report.verified() {
        println!("verified");
        ExitCode::SUCCESS
    } else {
        eprintln!("error: the copy does not match its source");
        ExitCode::from(1)
    }
}

fn run_perft(depth: u32, fen: Option<&str>, orthodox: bool, split: bool) -> ExitCode {
    let rules = if orthodox {
        Rules::Orthodox
    } else {
        Rules::Marseillais
    };
    let position = match fen {
        None => Position::initial().with_rules(rules),
        Some(text) => match Position::from_fen(text, rules) {
            Ok(position) => position,
            Err(err) => {
                eprintln!("error: {err}");
                return ExitCode::from(2);
            }
        },
    };
    if split {
        let rows = divide(&position, depth);
        let mut total = 0;
        for (mv, nodes) in &rows {
            println!("{mv}: {nodes}");
            total += nodes;
        }
        println!();
        println!("{total}");
    } else {
        println!("{}", perft(&position, depth));
    }
    ExitCode::SUCCESS
}

/// Validates every game of a comma-PGN file strictly. Prints the first
/// problem of each bad game and a summary; exit 0 when every game is good,
/// 1 when any is bad (or the file holds no game), 2 when it cannot be read.
fn run_pgn_check(file: &std::path::Path) -> ExitCode {
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!("error: cannot read {}: {err}", file.display());
            return ExitCode::from(2);
        }
    };
    // PGN files in the wild are often Latin-1 in their tags; a stray byte
    // should not stop the check of the moves.
    let text = String::from_utf8_lossy(&bytes);
    let reports = marseillais::rules::pgn::check_games(&text);
    let mut bad = 0;
    for report in &reports {
        if let Some(problem) = report.problems.first() {
            bad += 1;
            let more = report.problems.len() - 1;
            if more > 0 {
                println!(
                    "game {}: {problem} (and {more} more problem{})",
                    report.index,
                    if more == 1 { "" } else { "s" }
                );
            } else {
                println!("game {}: {problem}", report.index);
            }
        }
    }
    let good = reports.len() - bad;
    println!(
        "{} game{} checked: {good} good, {bad} bad",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" }
    );
    if reports.is_empty() {
        eprintln!("error: no game found in {}", file.display());
        return ExitCode::from(1);
    }
    if bad > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
