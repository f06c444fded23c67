//! The one independent model of the Marseillais rules that the tests check
//! the engine against: its legal sub-moves (perft, divide), the position it
//! reaches (extended FEN, rules section 5), and the board draws of section 3.
//! Written from `docs/rules.md` sections 1, 2, 3, 5 and 6 on top of
//! cozy-chess; used by `perft_marseillais`, `proptest_position` and
//! `rules_reference`.
//!
//! It shares no code with `src/rules`: orthodox moves come from cozy-chess's
//! move generator, and the Marseillais turn state is kept in a different shape
//! (the targets the mover may capture and the targets it made on its own S1,
//! as two lists) so that a mistake in the engine's single `ep` bitboard would
//! not be repeated here. En passant is never left to cozy-chess: its captures
//! are filtered out and ours are played by rebuilding the board, and the
//! rebuild is refused by cozy-chess exactly when it would leave our king
//! attacked (the side not to move may not be in check).
#![allow(dead_code)] // Each test crate uses a part of the model.

use std::collections::BTreeSet;

use cozy_chess::{Board, BoardBuilder, Color, File, Piece, Rank, Square, get_pawn_attacks};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Single,
    First,
    Second,
}

/// A position at a sub-move boundary, as the reference sees it.
#[derive(Clone, Debug)]
pub struct State {
    /// The placement, castling rights and side to move; cozy-chess's own
    /// en-passant square and counters are ignored.
    board: Board,
    phase: Phase,
    orthodox: bool,
    /// Opponent targets the mover may capture now (rules 2.3).
    capturable: Vec<Square>,
    /// Targets the mover made with a double step on its own S1.
    made: Vec<Square>,
    /// Sub-moves since the last pawn move or capture (rules 3).
    halfmove: u32,
    /// Counts full turns, starting at 1, incremented after Black's turn.
    fullmove: u32,
}

/// One legal sub-move, in the engine's UCI form (castling as the king's
/// two-square step), and the state after it.
pub struct Child {
    pub uci: String,
    pub state: State,
}

/// What a sub-move did, beyond the board it leaves.
struct Played {
    /// The target square of a pawn's double step.
    double_step: Option<Square>,
    /// The target square an en-passant capture used.
    en_passant: Option<Square>,
    /// A pawn moved or something was taken: the halfmove clock restarts.
    resets_clock: bool,
}

impl State {
    /// Reads an extended FEN (rules section 5) independently of the engine.
    pub fn from_fen(fen: &str, orthodox: bool) -> State {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        assert!(fields.len() == 6 || fields.len() == 7, "bad FEN {fen}");
        let plain = format!(
            "{} {} {} - {} {}",
            fields[0], fields[1], fields[2], fields[4], fields[5]
        );
        let board: Board = plain.parse().expect("cozy-chess reads the board");
        let mover = board.side_to_move();
        let phase = match fields.get(6) {
            _ if orthodox => Phase::Single,
            Some(&"1") => Phase::First,
            Some(&"2") => Phase::Second,
            Some(&"s") => Phase::Single,
            None if mover == Color::White && fields[5] == "1" => Phase::Single,
            None => Phase::First,
            Some(other) => panic!("bad phase {other}"),
        };
        let mut capturable = Vec::new();
        let mut made = Vec::new();
        if fields[3] != "-" {
            for text in fields[3].split(',') {
                let square: Square = text.parse().expect("target square");
                if square.rank() == Rank::Sixth.relative_to(mover) {
                    capturable.push(square);
                } else {
                    made.push(square);
                }
            }
        }
        State {
            board,
            phase,
            orthodox,
            capturable,
            made,
            halfmove: fields[4].parse().expect("halfmove clock"),
            fullmove: fields[5].parse().expect("fullmove number"),
        }
    }

    /// Every legal sub-move with the state it leads to.
    pub fn children(&self) -> Vec<Child> {
        let us = self.board.side_to_move();
        let mut out = Vec::new();
        let mut moves = Vec::new();
        self.board.generate_moves(|piece_moves| {
            moves.extend(piece_moves);
            false
        });
        for mv in moves {
            let piece = self.board.piece_on(mv.from).expect("a piece moves");
            let diagonal_to_empty = piece == Piece::Pawn
                && mv.from.file() != mv.to.file()
                && !self.board.occupied().has(mv.to);
            if diagonal_to_empty {
                continue; // cozy-chess's en passant: ours is generated below.
            }
            let castles = piece == Piece::King && self.board.colors(us).has(mv.to);
            let uci_to = if castles {
                let file = if mv.to.file() > mv.from.file() {
                    File::G
                } else {
                    File::C
                };
                Square::new(file, mv.from.rank())
            } else {
                mv.to
            };
            let uci = match mv.promotion {
                Some(p) => format!("{}{}{}", mv.from, uci_to, char::from(p)),
                None => format!("{}{}", mv.from, uci_to),
            };
            let played = Played {
                double_step: (piece == Piece::Pawn
                    && (mv.from.rank() as i8 - mv.to.rank() as i8).abs() == 2)
                    .then(|| Square::new(mv.from.file(), Rank::Third.relative_to(us))),
                en_passant: None,
                resets_clock: piece == Piece::Pawn || self.board.colors(!us).has(mv.to),
            };
            let mut after = self.board.clone();
            after.play_unchecked(mv);
            out.push(Child {
                uci,
                state: self.next(after, played),
            });
        }
        for &target in &self.capturable {
            if !exists(&self.board, target, !us) {
                continue;
            }
            let victim = Square::new(target.file(), Rank::Fifth.relative_to(us));
            let capturers =
                get_pawn_attacks(target, !us) & self.board.colored_pieces(us, Piece::Pawn);
            for from in capturers {
                let mut builder = BoardBuilder::from_board(&self.board);
                *builder.square_mut(from) = None;
                *builder.square_mut(victim) = None;
                *builder.square_mut(target) = Some((Piece::Pawn, us));
                builder.side_to_move = !us;
                builder.en_passant = None;
                // Refused when our king is left attacked: the capture is illegal.
                let Ok(after) = builder.build() else {
                    continue;
                };
                let played = Played {
                    double_step: None,
                    en_passant: Some(target),
                    resets_clock: true,
                };
                out.push(Child {
                    uci: format!("{from}{target}"),
                    state: self.next(after, played),
                });
            }
        }
        out
    }

    /// The state after the legal sub-move `uci`; panics if there is none.
    pub fn play(&self, uci: &str) -> State {
        self.children()
            .into_iter()
            .find(|child| child.uci == uci)
            .unwrap_or_else(|| panic!("the reference has no sub-move {uci}"))
            .state
    }

    /// The legal sub-moves as UCI text, sorted.
    pub fn legal_ucis(&self) -> BTreeSet<String> {
        self.children().into_iter().map(|child| child.uci).collect()
    }

    /// The state after a sub-move. `after` has the opponent to move.
    fn next(&self, after: Board, played: Played) -> State {
        let gives_check = !after.checkers().is_empty();
        let halfmove = if played.resets_clock {
            0
        } else {
            self.halfmove + 1
        };
        let turn_start = if self.orthodox {
            Phase::Single
        } else {
            Phase::First
        };
        let ends_turn = |targets: Vec<Square>| State {
            board: after.clone(),
            phase: turn_start,
            orthodox: self.orthodox,
            capturable: targets,
            made: Vec::new(),
            halfmove,
            fullmove: match self.board.side_to_move() {
                Color::Black => self.fullmove + 1,
                Color::White => self.fullmove,
            },
        };
        match self.phase {
            Phase::Single => ends_turn(played.double_step.into_iter().collect()),
            Phase::First if gives_check => ends_turn(played.double_step.into_iter().collect()),
            Phase::First => State {
                board: after.null_move().expect("the opponent is not in check"),
                phase: Phase::Second,
                orthodox: self.orthodox,
                // Only an en-passant S1 keeps the other rights (rules 2.3).
                capturable: match played.en_passant {
                    Some(used) => self
                        .capturable
                        .iter()
                        .copied()
                        .filter(|&t| t != used)
                        .collect(),
                    None => Vec::new(),
                },
                made: played.double_step.into_iter().collect(),
                halfmove,
                fullmove: self.fullmove,
            },
            Phase::Second => ends_turn(
                self.made
                    .iter()
                    .copied()
                    .chain(played.double_step)
                    .collect(),
            ),
        }
    }

    /// The extended FEN of this state (rules section 5, Marseillais rules):
    /// the targets that exist (rules 2.2), sorted, and the phase only where
    /// it is not the default for the side and move number.
    pub fn fen(&self) -> String {
        assert!(!self.orthodox, "the reference writes Marseillais FEN only");
        let us = self.board.side_to_move();
        let mut targets: Vec<Square> = match self.phase {
            Phase::Second if !self.made.is_empty() => existing(&self.board, &self.made, us),
            _ => existing(&self.board, &self.capturable, !us),
        };
        targets.sort_by_key(|&s| s as usize);
        let ep = if targets.is_empty() {
            "-".to_string()
        } else {
            let texts: Vec<String> = targets.iter().map(Square::to_string).collect();
            texts.join(",")
        };
        let default = if us == Color::White && self.fullmove == 1 {
            Phase::Single
        } else {
            Phase::First
        };
        let phase = match self.phase {
            phase if phase == default => "",
            Phase::Single => " s",
            Phase::First => " 1",
            Phase::Second => " 2",
        };
        let board = self.board.to_string();
        let fields: Vec<&str> = board.split(' ').collect();
        format!(
            "{} {us} {} {ep} {} {}{phase}",
            fields[0], fields[2], self.halfmove, self.fullmove
        )
    }

    /// Whether the mover is about to play the second sub-move of its turn.
    pub fn on_second_submove(&self) -> bool {
        self.phase == Phase::Second
    }

    /// Sub-moves since the last pawn move or capture.
    pub fn halfmove(&self) -> u32 {
        self.halfmove
    }

    /// Rules section 3, counted square by square: kings only, one knight, or
    /// bishops standing on squares of one colour only.
    pub fn insufficient_material(&self) -> bool {
        let mut knights = 0;
        let mut bishop_colours = BTreeSet::new();
        for square in Square::ALL {
            match self.board.piece_on(square) {
                None | Some(Piece::King) => {}
                Some(Piece::Knight) => knights += 1,
                Some(Piece::Bishop) => {
                    bishop_colours.insert((square.file() as usize + square.rank() as usize) % 2);
                }
                Some(_) => return false,
            }
        }
        matches!((knights, bishop_colours.len()), (0, 0 | 1) | (1, 0))
    }
}

/// Rules 2.2: a right exists while its pawn stands where it arrived (one
/// step beyond the target) and the target square is empty.
fn exists(board: &Board, target: Square, owner: Color) -> bool {
    let arrived = Square::new(target.file(), Rank::Fourth.relative_to(owner));
    !board.occupied().has(target) && board.colored_pieces(owner, Piece::Pawn).has(arrived)
}

fn existing(board: &Board, targets: &[Square], owner: Color) -> Vec<Square> {
    targets
        .iter()
        .copied()
        .filter(|&t| exists(board, t, owner))
        .collect()
}

/// Perft by the reference.
pub fn perft(state: &State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    state
        .children()
        .iter()
        .map(|child| perft(&child.state, depth - 1))
        .sum()
}

/// Divide by the reference, sorted by UCI text like the engine's.
pub fn divide(state: &State, depth: u32) -> Vec<(String, u64)> {
    let mut rows: Vec<(String, u64)> = state
        .children()
        .into_iter()
        .map(|child| {
            let nodes = perft(&child.state, depth.saturating_sub(1));
            (child.uci, nodes)
        })
        .collect();
    rows.sort();
    rows
}
