//! A player that is another program: a `marseillais uci` process of another build (the
//! issue's baseline, an older commit's level 8) driven over its pipes. Each game starts its own
//! process, so the two games of a pair and the games on other threads share nothing.
//!
//! The conversation is plain UCI: `uci`/`uciok`, the hash size, `isready`/`readyok`, then per
//! sub-move `position fen <the game's start> moves ...` and `go` with the game's limits, read
//! until `bestmove`. Every wait is bounded: an engine that says nothing, dies, or answers
//! something that is not a legal sub-move loses the game by forfeit, never hangs the match.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use crate::engine::Limits;
use crate::rules::{Game, SubMove};

/// The longest line read from the engine; a longer one is cut there (the rest is skipped).
const MAX_LINE: u64 = 64 * 1024;
/// How long the engine may take to start (`uciok`, `readyok`).
const START_WAIT: Duration = Duration::from_secs(30);
/// Added to a search's own time limit before the engine counts as silent.
const GRACE: Duration = Duration::from_secs(10);
/// The wait for a search at fixed nodes or depth, which has no time limit of its own.
const UNTIMED_WAIT: Duration = Duration::from_secs(300);

/// Why an engine process could not be used.
#[derive(Debug, thiserror::Error)]
pub enum UciPlayerError {
    #[error("cannot start {path}: {source}")]
    Spawn {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}: the engine closed its output")]
    Closed(PathBuf),
    #[error("{path}: no '{expected}' within {wait:?}")]
    Silent {
        path: PathBuf,
        expected: &'static str,
        wait: Duration,
    },
    #[error("{0}: cannot write to the engine")]
    Write(PathBuf),
}

/// A running engine process.
pub struct UciEngine {
    path: PathBuf,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl UciEngine {
    /// Starts `path uci` (a marseillais build), sets its table to `hash_mb` and waits until it
    /// is ready.
    pub fn start(path: &Path, hash_mb: usize) -> Result<UciEngine, UciPlayerError> {
        let mut child = Command::new(path)
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| UciPlayerError::Spawn {
                path: path.to_path_buf(),
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(UciPlayerError::Closed(path.to_path_buf()));
        };
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(line) = read_bounded_line(&mut reader) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = UciEngine {
            path: path.to_path_buf(),
            child,
            stdin,
            lines,
        };
        engine.send("uci")?;
        engine.wait_for("uciok", START_WAIT)?;
        engine.send(&format!("setoption name Hash value {hash_mb}"))?;
        engine.send("ucinewgame")?;
        engine.send("isready")?;
        engine.wait_for("readyok", START_WAIT)?;
        Ok(engine)
    }

    /// The engine's sub-move in `game`'s position within `limits`; `None` when it fails to
    /// answer in time or answers no sub-move.
    pub fn choose(&mut self, game: &Game, limits: &Limits) -> Option<SubMove> {
        let moves: Vec<String> = game.submoves().iter().map(|m| m.to_string()).collect();
        let mut position = format!("position fen {}", game.start().fen());
        if !moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&moves.join(" "));
        }
        self.send(&position).ok()?;
        let (go, wait) = go_command(limits);
        self.send(&go).ok()?;
        let line = self.wait_for("bestmove", wait).ok()?;
        let text = line.split_whitespace().nth(1)?;
        text.parse().ok()
    }

    fn send(&mut self, line: &str) -> Result<(), UciPlayerError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| UciPlayerError::Write(self.path.clone()))
    }

    /// The first line whose first word is `expected`, waiting at most `wait` in all.
    fn wait_for(
        &mut self,
        expected: &'static str,
        wait: Duration,
    ) -> Result<String, UciPlayerError> {
        let deadline = std::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.split_whitespace().next() == Some(expected) => return Ok(line),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(UciPlayerError::Silent {
                        path: self.path.clone(),
                        expected,
                        wait,
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(UciPlayerError::Closed(self.path.clone()));
                }
            }
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // A well-behaved engine is gone by now or soon; a stuck one is killed.
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A line of at most [`MAX_LINE`] bytes (the rest of a longer one is skipped), without its end;
/// `None` at the end of the output.
fn read_bounded_line(reader: &mut impl BufRead) -> Option<String> {
    let mut bytes = Vec::new();
    let read = reader
        .by_ref()
        .take(MAX_LINE)
        .read_until(b'\n', &mut bytes)
        .ok()?;
    if read == 0 {
        return None;
    }
    if bytes.last() != Some(&b'\n') && read as u64 == MAX_LINE {
        // Skip the rest of the overlong line, boundedly per read.
        let mut sink = Vec::new();
        loop {
            sink.clear();
            let n = reader
                .by_ref()
                .take(MAX_LINE)
                .read_until(b'\n', &mut sink)
                .ok()?;
            if n == 0 || sink.last() == Some(&b'\n') {
                break;
            }
        }
    }
    Some(String::from_utf8_lossy(&bytes).trim_end().to_string())
}

/// The `go` command of `limits` and how long to wait for its answer.
fn go_command(limits: &Limits) -> (String, Duration) {
    let mut go = String::from("go");
    let mut wait = UNTIMED_WAIT;
    if let Some(n) = limits.nodes {
        go.push_str(&format!(" nodes {n}"));
    }
    if let Some(d) = limits.depth {
        go.push_str(&format!(" depth {d}"));
    }
    if let Some(t) = limits.movetime {
        go.push_str(&format!(" movetime {}", t.as_millis()));
        wait = t + GRACE;
    }
    if let (Some(w), Some(b)) = (limits.wtime, limits.btime) {
        go.push_str(&format!(
            " wtime {} btime {} winc {} binc {}",
            w.as_millis(),
            b.as_millis(),
            limits.winc.as_millis(),
            limits.binc.as_millis()
        ));
        wait = w.max(b) + GRACE;
    }
    (go, wait)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_names_the_limits_and_waits_past_the_clock() {
        let (go, wait) = go_command(&Limits::nodes(2000));
        assert_eq!(go, "go nodes 2000");
        assert_eq!(wait, UNTIMED_WAIT);
        let limits = Limits {
            wtime: Some(Duration::from_millis(9000)),
            btime: Some(Duration::from_millis(8000)),
            winc: Duration::from_millis(100),
            binc: Duration::from_millis(100),
            ..Limits::default()
        };
        let (go, wait) = go_command(&limits);
        assert_eq!(go, "go wtime 9000 btime 8000 winc 100 binc 100");
        assert_eq!(wait, Duration::from_millis(9000) + GRACE);
    }

    #[test]
    fn an_overlong_line_is_cut_and_the_next_line_still_reads() {
        let long = "x".repeat(MAX_LINE as usize * 2 + 10);
        let text = format!("{long}\nbestmove e2e4\n");
        let mut reader = BufReader::new(text.as_bytes());
        let first = read_bounded_line(&mut reader).expect("first");
        assert_eq!(first.len(), MAX_LINE as usize);
        assert_eq!(
            read_bounded_line(&mut reader).as_deref(),
            Some("bestmove e2e4")
        );
        assert_eq!(read_bounded_line(&mut reader), None);
    }

    #[test]
    fn a_program_that_is_not_there_is_refused_with_its_path() {
        let error = UciEngine::start(Path::new("/nonexistent/engine"), 1)
            .err()
            .expect("no such program");
        assert!(error.to_string().contains("/nonexistent/engine"), "{error}");
    }
}
