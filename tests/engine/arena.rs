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
