//! UCI conversations with the real binary (`marseillais uci`) over pipes.
//! Reads are bounded: a reader thread forwards lines and every wait has a
//! generous timeout that only guards against a hang.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use marseillais::rules::{Position, Rules, SubMove};

const HANG_GUARD: Duration = Duration::from_secs(60);

struct Uci {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Uci {
    fn start() -> Uci {
        let mut child = Command::new(env!("CARGO_BIN_EXE_marseillais"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Uci {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        for _ in 0..10_000 {
            match self.lines.recv_timeout(HANG_GUARD) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no '{prefix}' line; got {seen:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("engine exited before '{prefix}'; got {seen:?}")
                }
            }
        }
        panic!("too many lines before '{prefix}'");
    }

    fn bestmove(&mut self) -> String {
        let lines = self.until("bestmove");
        lines.last().unwrap()["bestmove ".len()..]
            .trim()
            .to_string()
    }
}

impl Drop for Uci {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // Bounded wait for a clean exit, then make sure it is gone.
        for _ in 0..200 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn uci_lists_the_variant_hash_and_skill_options_then_uciok() {
    let mut uci = Uci::start();
    uci.send("uci");
    let lines = uci.until("uciok");
    assert!(lines[0].starts_with("id name "));
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    assert!(lines.contains(
        &"option name UCI_Variant type combo default marseillais var marseillais".to_string()
    ));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Hash type spin"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Skill Level type spin"))
    );
    assert!(!lines.iter().any(|l| l.contains("Threads")));
    uci.send("isready");
    uci.until("readyok");
}

#[test]
fn go_reports_info_lines_and_one_legal_bestmove() {
    let mut uci = Uci::start();
    uci.send("position startpos moves e2e4");
    uci.send("go depth 3");
    let lines = uci.until("bestmove");
    let info = lines.iter().find(|l| l.starts_with("info depth")).unwrap();
    for field in [
        " seldepth ",
        " score cp ",
        " nodes ",
        " nps ",
        " time ",
        " pv ",
    ] {
        assert!(info.contains(field), "{info} lacks {field}");
    }
    let best: SubMove = lines.last().unwrap()["bestmove ".len()..].parse().unwrap();
    let after_e4 = Position::initial().play("e2e4".parse().unwrap()).unwrap();
    assert!(after_e4.is_legal(best), "{best} is not a Black S1");
}

#[test]
fn after_s1_the_engine_plays_the_s2_it_planned() {
    let mut uci = Uci::start();
    let fen = "7k/1n4pp/8/8/8/8/8/1R4K1 w - - 0 5";
    uci.send(&format!("position fen {fen}"));
    uci.send("go depth 4");
    let lines = uci.until("bestmove");
    assert!(
        lines.iter().any(|l| l.contains("score mate 2")),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove b1b7");
    uci.send(&format!("position fen {fen} moves b1b7"));
    uci.send("go depth 4");
    let lines = uci.until("bestmove");
    assert!(
        lines.iter().any(|l| l.contains("score mate 1")),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove b7b8");
}

#[test]
fn an_illegal_move_keeps_the_last_good_position() {
    let mut uci = Uci::start();
    uci.send("position startpos moves e2e4");
    uci.send("position startpos moves e2e4 e7e4");
    let lines = uci.until("info string");
    assert!(lines.last().unwrap().contains("e7e4"), "{lines:?}");
    uci.send("go depth 1");
    let best: SubMove = uci.bestmove().parse().unwrap();
    let after_e4 = Position::initial().play("e2e4".parse().unwrap()).unwrap();
    assert!(after_e4.is_legal(best));
}

#[test]
fn bad_input_gets_info_string_and_the_engine_lives_on() {
    let mut uci = Uci::start();
    for bad in [
        "fly me to the moon",
        "position fen not/a/fen w - - 0 1",
        "position startpos moves e2",
        "go depth x",
        "setoption name Skill Level value 42",
        "setoption name Colour value blue",
        "position",
    ] {
        uci.send(bad);
        let line = uci.until("info string").pop().unwrap();
        assert!(line.len() > "info string ".len(), "{bad}: {line}");
    }
    uci.send(&"x".repeat(100_000));
    uci.until("info string input line longer");
    uci.send("isready");
    uci.until("readyok");
}

#[test]
fn go_on_a_finished_game_answers_bestmove_0000() {
    let mut uci = Uci::start();
    uci.send("position fen k6Q/8/1K6/8/8/8/8/8 b - - 0 5");
    uci.send("go depth 3");
    assert_eq!(uci.bestmove(), "0000");
    // Worked case 8: g2g3 leaves no S2, a second-move stalemate.
    uci.send("position fen 1r5k/8/8/8/6p1/p7/P5P1/K7 w - - 0 5 moves g2g3");
    uci.send("go depth 3");
    assert_eq!(uci.bestmove(), "0000");
}

#[test]
fn stop_ends_go_infinite_with_a_bestmove_and_isready_is_read_while_searching() {
    let mut uci = Uci::start();
    uci.send("position startpos moves e2e4 e7e5");
    uci.send("go infinite");
    uci.until("info depth 2");
    uci.send("isready");
    let lines = uci.until("readyok");
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")));
    uci.send("stop");
    let best: SubMove = uci.bestmove().parse().unwrap();
    let pos = ["e2e4", "e7e5"].iter().fold(Position::initial(), |p, m| {
        p.play(m.parse().unwrap()).unwrap()
    });
    assert!(pos.is_legal(best));
}

#[test]
fn skill_level_and_hash_options_are_accepted() {
    let mut uci = Uci::start();
    uci.send("setoption name Hash value 4");
    uci.send("setoption name Skill Level value 1");
    uci.send("setoption name UCI_Variant value marseillais");
    uci.send("ucinewgame");
    uci.send("position startpos");
    uci.send("go movetime 50");
    let lines = uci.until("bestmove");
    assert!(
        !lines.iter().any(|l| l.starts_with("info string")),
        "{lines:?}"
    );
    // Level 1 searches one sub-move deep.
    assert!(
        lines.iter().all(|l| !l.starts_with("info depth 2")),
        "{lines:?}"
    );
    let best: SubMove = lines.last().unwrap()["bestmove ".len()..].parse().unwrap();
    assert!(
        Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            Rules::Marseillais
        )
        .unwrap()
        .is_legal(best)
    );
}

#[test]
fn a_clocked_turn_gets_a_bestmove_at_s1_and_at_s2() {
    let mut uci = Uci::start();
    uci.send("position startpos moves e2e4");
    uci.send("go wtime 3000 btime 3000 winc 10 binc 10");
    let s1: SubMove = uci.bestmove().parse().unwrap();
    let after_e4 = Position::initial().play("e2e4".parse().unwrap()).unwrap();
    let after_s1 = after_e4.play(s1).unwrap();
    uci.send(&format!("position startpos moves e2e4 {s1}"));
    uci.send("go wtime 3000 btime 2900 winc 10 binc 10");
    let s2: SubMove = uci.bestmove().parse().unwrap();
    assert!(after_s1.is_legal(s2), "{s2} is not a legal S2");
}

#[test]
fn startpos_has_a_single_submove_first_turn_so_black_answers_in_the_pv() {
    let mut uci = Uci::start();
    uci.send("position startpos");
    uci.send("go depth 3");
    let lines = uci.until("bestmove");
    let info = lines
        .iter()
        .find(|l| l.starts_with("info depth 3"))
        .expect("depth 3 reported");
    let pv: Vec<SubMove> = info
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .map(|m| m.parse().unwrap())
        .collect();
    let after_white = Position::initial().play(pv[0]).unwrap();
    assert_eq!(after_white.side_to_move(), marseillais::rules::Color::Black);
    // The second and third sub-moves of the PV are Black's S1 and S2.
    let after_s1 = after_white.play(pv[1]).unwrap();
    assert!(after_s1.play(pv[2]).is_ok());
}
