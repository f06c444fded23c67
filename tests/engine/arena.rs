//! The match harness is bounded and reproducible: the same seed at a fixed
//! node budget gives the same games, another seed other games.

use crate::support;

use support::process::run;

fn arena(seed: &str) -> String {
    let out = run(
        env!("CARGO_BIN_EXE_arena"),
        &[
            "--a",
            "level:3",
            "--b",
            "level:2",
            "--games",
            "4",
            "--nodes",
            "2000",
            "--seed",
            seed,
            "--verbose",
        ],
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Drop the summary's elapsed time, the only line that may differ.
    text.lines()
        .filter(|l| l.starts_with("game") || l.starts_with("  "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_same_seed_replays_the_same_games_and_another_seed_others() {
    let a = arena("7");
    assert_eq!(a.lines().filter(|l| l.starts_with("game")).count(), 4);
    assert_eq!(a, arena("7"));
    assert_ne!(a, arena("8"));
}

#[test]
fn a_bad_player_name_is_refused_with_exit_code_2() {
    let out = run(env!("CARGO_BIN_EXE_arena"), &["--a", "level:9"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A short SPRT at fixed nodes from the shipped book, run through the binary: the LLR leaves
/// its bounds, the report names the Elo, its interval, the LLR and the pairs, and the same
/// seed decides the same at any concurrency.
fn sprt(concurrency: &str) -> String {
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/openings.fen");
    let out = run(
        env!("CARGO_BIN_EXE_arena"),
        &[
            "--sprt",
            "--a",
            "level:5",
            "--b",
            "level:1",
            "--elo0",
            "0",
            "--elo1",
            "100",
            "--nodes",
            "3000",
            "--book",
            book,
            "--max-pairs",
            "40",
            "--concurrency",
            concurrency,
            "--seed",
            "5",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The report's last two lines, without the elapsed time.
fn verdict(report: &str) -> Vec<String> {
    let lines: Vec<&str> = report.lines().collect();
    lines[lines.len().saturating_sub(2)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn a_short_sprt_from_the_book_decides_and_decides_the_same_at_any_concurrency() {
    let one = sprt("1");
    let last = verdict(&one);
    assert!(last[0].starts_with("Elo +"), "{one}");
    assert!(
        last[0].contains("(95%)") && last[0].contains("LLR "),
        "{one}"
    );
    assert_eq!(
        last[1], "SPRT [0, 100] alpha 0.05 beta 0.05: H1 accepted (passed)",
        "{one}"
    );
    assert_eq!(verdict(&sprt("2")), last);
}

#[test]
fn sprt_terms_that_cannot_decide_are_refused_with_exit_code_2() {
    let out = run(
        env!("CARGO_BIN_EXE_arena"),
        &["--sprt", "--elo0", "5", "--elo1", "0"],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = run(env!("CARGO_BIN_EXE_arena"), &["--tc", "0+1"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Another build as a player (`uci:PATH`): this build's own binary over UCI against the same
/// engine in process, at fixed nodes. The two are the same player, so each pair's second game
/// is its first with the colours swapped and every pair splits 1-1 (pentanomial `[0, 0, N, 0,
/// 0]`). A lost option, start position, move or turn plan on the pipe would break a mirror.
#[test]
fn this_build_over_uci_plays_the_same_games_as_in_process() {
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/openings.fen");
    let uci = format!("uci:{}", env!("CARGO_BIN_EXE_marseillais"));
    let out = run(
        env!("CARGO_BIN_EXE_arena"),
        &[
            "--a", "level:8", "--b", &uci, "--games", "8", "--nodes", "4000", "--book", book,
            "--seed", "3",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains("pairs 4 [0, 0, 4, 0, 0]"), "{text}");
    assert!(!text.contains("forfeit"), "{text}");
}

#[test]
fn a_uci_player_that_cannot_start_is_refused_with_exit_code_2() {
    let out = run(
        env!("CARGO_BIN_EXE_arena"),
        &["--b", "uci:/nonexistent/marseillais", "--games", "2"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/marseillais"), "{err}");
}
