//! UCI on a reader and a writer (`marseillais uci` uses stdin and stdout).
//!
//! One `bestmove` is one sub-move. After S1 the GUI sends the position with
//! S1 appended and `go` again; the engine then plays the S2 its S1 search
//! planned when the position is the one it expected (it searches again with
//! what is left of the turn's time, starting from what it learnt at S1).
//!
//! Bad input never ends the engine: a line it cannot use is answered with
//! `info string <reason>` and changes nothing (an illegal move in `position`
//! keeps the last good position). The search runs on its own thread, so
//! `stop`, `isready` and `quit` are read while it searches. A command that
//! changes the engine's state (`position`, `go`, `setoption`, `ucinewgame`)
//! arriving during a search first stops it (its `bestmove` is sent).

use std::io::{BufRead, Write};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::rules::{FenError, Game, GameError, Position, Rules, SubMove, UciError};

use super::tt::Tt;
use super::{Engine, Level, Limits, Score, SearchInfo};

/// The longest input line read; the rest of a longer line is skipped.
pub const MAX_LINE: usize = 64 * 1024;

pub const NAME: &str = concat!("marseillais ", env!("CARGO_PKG_VERSION"));
pub const AUTHOR: &str = "the marseillais authors";

/// Why a line was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UciCommandError {
    #[error("unknown command '{0}'")]
    UnknownCommand(String),
    #[error("{0}: missing argument")]
    Missing(&'static str),
    #[error("{what}: '{value}' is not a valid number")]
    Number { what: &'static str, value: String },
    #[error("position: expected 'startpos' or 'fen', found '{0}'")]
    PositionKind(String),
    #[error("position: {0}")]
    Fen(#[from] FenError),
    #[error("position: move {index} '{text}': {reason}")]
    MoveText {
        index: usize,
        text: String,
        reason: UciError,
    },
    #[error("position: move {index} '{text}' is illegal: {reason}")]
    IllegalMove {
        index: usize,
        text: String,
        reason: GameError,
    },
    #[error("position: expected 'moves', found '{0}'")]
    ExpectedMoves(String),
    #[error("setoption: unknown option '{0}'")]
    UnknownOption(String),
    #[error("setoption: {name}: bad value '{value}'")]
    OptionValue { name: String, value: String },
    #[error("go: unknown parameter '{0}'")]
    GoParameter(String),
    #[error("input line longer than {MAX_LINE} bytes, ignored")]
    LineTooLong,
    #[error("input line is not UTF-8, ignored")]
    NotUtf8,
}

/// How the position command names its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
}

/// One UCI command, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug,
    IsReady,
    UciNewGame,
    SetOption { name: String, value: Option<String> },
    Position { start: Start, moves: Vec<String> },
    Go(Limits),
    Stop,
    PonderHit,
    Quit,
}

/// Parses a line; `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Command>, UciCommandError> {
    let mut tokens = line.split_whitespace();
    let Some(head) = tokens.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = tokens.collect();
    let command = match head {
        "uci" => Command::Uci,
        "debug" => Command::Debug,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "setoption" => parse_setoption(&rest)?,
        "position" => parse_position(&rest)?,
        "go" => Command::Go(parse_go(&rest)?),
        other => return Err(UciCommandError::UnknownCommand(truncate(other))),
    };
    Ok(Some(command))
}

/// Echoed text is cut short so that a huge token cannot flood the output.
fn truncate(text: &str) -> String {
    text.chars().take(64).collect()
}

fn parse_setoption(rest: &[&str]) -> Result<Command, UciCommandError> {
    if rest.first() != Some(&"name") {
        return Err(UciCommandError::Missing("setoption name"));
    }
    let value_at = rest.iter().position(|&t| t == "value");
    let name_end = value_at.unwrap_or(rest.len());
    let name = rest[1..name_end].join(" ");
    if name.is_empty() {
        return Err(UciCommandError::Missing("setoption name"));
    }
    let value = value_at.map(|i| rest[i + 1..].join(" "));
    Ok(Command::SetOption { name, value })
}

fn parse_position(rest: &[&str]) -> Result<Command, UciCommandError> {
    let (start, after) = match rest.first() {
        None => return Err(UciCommandError::Missing("position")),
        Some(&"startpos") => (Start::StartPos, &rest[1..]),
        Some(&"fen") => {
            let end = rest
                .iter()
                .position(|&t| t == "moves")
                .unwrap_or(rest.len());
            if end <= 1 {
                return Err(UciCommandError::Missing("position fen"));
            }
            (Start::Fen(rest[1..end].join(" ")), &rest[end..])
        }
        Some(other) => return Err(UciCommandError::PositionKind(truncate(other))),
    };
    let moves = match after.first() {
        None => Vec::new(),
        Some(&"moves") => after[1..].iter().map(|s| s.to_string()).collect(),
        Some(other) => return Err(UciCommandError::ExpectedMoves(truncate(other))),
    };
    Ok(Command::Position { start, moves })
}

fn parse_go(rest: &[&str]) -> Result<Limits, UciCommandError> {
    fn number<T: FromStr>(what: &'static str, v: Option<&&str>) -> Result<T, UciCommandError> {
        let v = v.ok_or(UciCommandError::Missing(what))?;
        v.parse().map_err(|_| UciCommandError::Number {
            what,
            value: truncate(v),
        })
    }
    // GUIs send negative clocks when a flag has fallen; read them as zero.
    fn millis(what: &'static str, v: Option<&&str>) -> Result<Duration, UciCommandError> {
        let ms: i64 = number(what, v)?;
        Ok(Duration::from_millis(ms.max(0) as u64))
    }
    let mut limits = Limits::default();
    let mut i = 0;
    while i < rest.len() {
        let value = rest.get(i + 1);
        match rest[i] {
            "infinite" => {
                limits.infinite = true;
                i += 1;
                continue;
            }
            "ponder" => {
                i += 1;
                continue;
            }
            "depth" => limits.depth = Some(number("go depth", value)?),
            "nodes" => limits.nodes = Some(number("go nodes", value)?),
            "movetime" => limits.movetime = Some(millis("go movetime", value)?),
            "wtime" => limits.wtime = Some(millis("go wtime", value)?),
            "btime" => limits.btime = Some(millis("go btime", value)?),
            "winc" => limits.winc = millis("go winc", value)?,
            "binc" => limits.binc = millis("go binc", value)?,
            "movestogo" | "mate" => {
                let _: u64 = number("go movestogo", value)?;
            }
            other => return Err(UciCommandError::GoParameter(truncate(other))),
        }
        i += 2;
    }
    Ok(limits)
}

/// Builds the game a `position` command describes.
pub fn build_game(start: &Start, moves: &[String]) -> Result<Game, UciCommandError> {
    let position = match start {
        Start::StartPos => Position::initial(),
        Start::Fen(fen) => Position::from_fen(fen, Rules::Marseillais)?,
    };
    let mut game = Game::new(position);
    for (index, text) in moves.iter().enumerate() {
        let mv: SubMove = text.parse().map_err(|reason| UciCommandError::MoveText {
            index: index + 1,
            text: truncate(text),
            reason,
        })?;
        game.play(mv)
            .map_err(|reason| UciCommandError::IllegalMove {
                index: index + 1,
                text: truncate(text),
                reason,
            })?;
    }
    Ok(game)
}

/// The `info` line of an iteration.
pub fn info_line(info: &SearchInfo) -> String {
    let score = match info.score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_string()).collect();
    format!(
        "info depth {} seldepth {} score {} nodes {} nps {} time {} pv {}",
        info.depth,
        info.seldepth,
        score,
        info.nodes,
        info.nps(),
        info.time.as_millis(),
        pv.join(" ")
    )
}

type Output = Arc<Mutex<Box<dyn Write + Send>>>;

fn send(out: &Output, line: &str) {
    // A broken pipe means the GUI is gone; nothing useful is left to do
    // with the error, and the input side will see EOF.
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

/// The protocol state: the engine (lent to the search thread while it
/// searches), the last good game, and the stop flag.
struct Session {
    out: Output,
    engine: Option<Engine>,
    game: Game,
    searching: Option<JoinHandle<Engine>>,
    stop: Arc<AtomicBool>,
}

impl Session {
    /// Waits for a running search to end (stopping it first), taking the engine back.
    fn finish_search(&mut self) {
        if let Some(handle) = self.searching.take() {
            self.stop.store(true, Ordering::Relaxed);
            match handle.join() {
                Ok(engine) => self.engine = Some(engine),
                Err(_) => {
                    send(&self.out, "info string the search failed; engine reset");
                    self.engine = Some(Engine::new());
                }
            }
        }
    }

    fn engine(&mut self) -> &mut Engine {
        self.finish_search();
        self.engine.get_or_insert_with(Engine::new)
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), UciCommandError> {
        let bad = || UciCommandError::OptionValue {
            name: name.to_string(),
            value: truncate(value.unwrap_or("")),
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                let mb: usize = value.and_then(|v| v.trim().parse().ok()).ok_or_else(bad)?;
                if !(1..=Tt::MAX_MB).contains(&mb) {
                    return Err(bad());
                }
                self.engine().set_hash_mb(mb);
            }
            "skill level" => {
                let n: i64 = value.and_then(|v| v.trim().parse().ok()).ok_or_else(bad)?;
                if !(Level::MIN as i64..=Level::MAX as i64).contains(&n) {
                    return Err(bad());
                }
                self.engine().set_level(Level::new(n));
            }
            "uci_variant" => {
                if !value.is_some_and(|v| v.trim().eq_ignore_ascii_case("marseillais")) {
                    return Err(bad());
                }
            }
            _ => return Err(UciCommandError::UnknownOption(truncate(name))),
        }
        Ok(())
    }

    fn go(&mut self, limits: Limits) {
        let mut engine = self.engine.take().unwrap_or_default();
        let game = self.game.clone();
        let out = self.out.clone();
        self.stop.store(false, Ordering::Relaxed);
        let stop = self.stop.clone();
        self.searching = Some(std::thread::spawn(move || {
            let result = engine.search(&game, &limits, &stop, |info| {
                send(&out, &info_line(info));
            });
            let best = result.best.map_or("0000".to_string(), |m| m.to_string());
            send(&out, &format!("bestmove {best}"));
            engine
        }));
    }

    /// Handles one command; false when the session ends.
    fn handle(&mut self, command: Command) -> Result<bool, UciCommandError> {
        match command {
            Command::Uci => {
                send(&self.out, &format!("id name {NAME}"));
                send(&self.out, &format!("id author {AUTHOR}"));
                send(
                    &self.out,
                    "option name UCI_Variant type combo default marseillais var marseillais",
                );
                send(
                    &self.out,
                    &format!(
                        "option name Hash type spin default {} min 1 max {}",
                        Tt::DEFAULT_MB,
                        Tt::MAX_MB
                    ),
                );
                send(
                    &self.out,
                    &format!(
                        "option name Skill Level type spin default {} min {} max {}",
                        Level::MAX,
                        Level::MIN,
                        Level::MAX
                    ),
                );
                send(&self.out, "uciok");
            }
            Command::Debug | Command::PonderHit => {}
            Command::IsReady => send(&self.out, "readyok"),
            Command::UciNewGame => {
                self.engine().new_game();
                self.game = Game::new(Position::initial());
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref())?,
            Command::Position { start, moves } => {
                self.finish_search();
                self.game = build_game(&start, &moves)?;
            }
            Command::Go(limits) => {
                self.finish_search();
                self.go(limits);
            }
            Command::Stop => self.finish_search(),
            Command::Quit => {
                self.finish_search();
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Reads one line of at most [`MAX_LINE`] bytes. `None` at end of input.
fn read_line<R: BufRead>(input: &mut R) -> Option<Result<String, UciCommandError>> {
    let mut buf = Vec::new();
    let read = <&mut R as std::io::Read>::take(&mut *input, MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf);
    match read {
        Err(_) => None,
        Ok(0) => None,
        Ok(_) => {
            if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
                // Skip to the end of the overlong line, in bounded pieces.
                loop {
                    let mut rest = Vec::new();
                    match <&mut R as std::io::Read>::take(&mut *input, MAX_LINE as u64)
                        .read_until(b'\n', &mut rest)
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) if rest.last() == Some(&b'\n') => break,
                        Ok(_) => {}
                    }
                }
                return Some(Err(UciCommandError::LineTooLong));
            }
            Some(String::from_utf8(buf).map_err(|_| UciCommandError::NotUtf8))
        }
    }
}

/// Runs a UCI session until `quit` or the end of `input`.
pub fn run(mut input: impl BufRead, output: Box<dyn Write + Send>) {
    let mut session = Session {
        out: Arc::new(Mutex::new(output)),
        engine: Some(Engine::new()),
        game: Game::new(Position::initial()),
        searching: None,
        stop: Arc::new(AtomicBool::new(false)),
    };
    while let Some(line) = read_line(&mut input) {
        let result = line
            .and_then(|l| parse(&l))
            .and_then(|command| match command {
                None => Ok(true),
                Some(c) => session.handle(c),
            });
        match result {
            Ok(true) => {}
            Ok(false) => return,
            Err(err) => send(&session.out, &format!("info string {err}")),
        }
    }
    session.finish_search();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_parses_every_limit() {
        let limits = parse_go(
            &"wtime 1000 btime -5 winc 10 binc 20 depth 3 nodes 500 movetime 50"
                .split(' ')
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!(limits.wtime, Some(Duration::from_millis(1000)));
        assert_eq!(limits.btime, Some(Duration::ZERO));
        assert_eq!(limits.depth, Some(3));
        assert_eq!(limits.nodes, Some(500));
    }

    #[test]
    fn position_fen_takes_seven_fields_and_moves() {
        let cmd = parse("position fen 4k3/8/8/8/8/8/8/R3K3 b - - 0 1 s moves e8d8")
            .unwrap()
            .unwrap();
        assert_eq!(
            cmd,
            Command::Position {
                start: Start::Fen("4k3/8/8/8/8/8/8/R3K3 b - - 0 1 s".into()),
                moves: vec!["e8d8".into()]
            }
        );
    }

    #[test]
    fn unknown_commands_and_bad_numbers_are_typed_errors() {
        assert!(matches!(
            parse("fly"),
            Err(UciCommandError::UnknownCommand(_))
        ));
        assert!(matches!(
            parse("go depth x"),
            Err(UciCommandError::Number { .. })
        ));
    }
}
