//! An independent Marseillais perft, written from `docs/rules.md` sections 1,
//! 2 and 6 on top of cozy-chess, to cross-check the engine's numbers.
//!
//! It shares no code with `src/rules`: orthodox moves come from cozy-chess's
//! move generator, and the Marseillais turn state is kept in a different shape
//! (the targets the mover may capture and the targets it made on its own S1,
//! as two lists) so that a mistake in the engine's single `ep` bitboard would
//! not be repeated here. En passant is never left to cozy-chess: its captures
//! are filtered out and ours are played by rebuilding the board, and the
//! rebuild is refused by cozy-chess exactly when it would leave our king
//! attacked (the side not to move may not be in check).

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
    /// en-passant square is ignored.
    board: Board,
    phase: Phase,
    orthodox: bool,
    /// Opponent targets the mover may capture now (rules 2.3).
    capturable: Vec<Square>,
    /// Targets the mover made with a double step on its own S1.
    made: Vec<Square>,
}

/// One legal sub-move, in the engine's UCI form (castling as the king's
/// two-square step), and the state after it.
pub struct Child {
    pub uci: String,
    pub state: State,
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
            let double_step = (piece == Piece::Pawn
                && (mv.from.rank() as i8 - mv.to.rank() as i8).abs() == 2)
                .then(|| Square::new(mv.from.file(), Rank::Third.relative_to(us)));
            let mut after = self.board.clone();
            after.play_unchecked(mv);
            out.push(Child {
                uci,
                state: self.next(after, double_step, None),
            });
        }
        for &target in &self.capturable {
            let victim = Square::new(target.file(), Rank::Fifth.relative_to(us));
            let exists = !self.board.occupied().has(target)
                && self.board.colored_pieces(!us, Piece::Pawn).has(victim);
            if !exists {
                continue;
            }
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
                out.push(Child {
                    uci: format!("{from}{target}"),
                    state: self.next(after, None, Some(target)),
                });
            }
        }
        out
    }

    /// The state after a sub-move. `after` has the opponent to move.
    fn next(&self, after: Board, double_step: Option<Square>, en_passant: Option<Square>) -> State {
        let gives_check = !after.checkers().is_empty();
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
        };
        match self.phase {
            Phase::Single => ends_turn(double_step.into_iter().collect()),
            Phase::First if gives_check => ends_turn(double_step.into_iter().collect()),
            Phase::First => State {
                board: after.null_move().expect("the opponent is not in check"),
                phase: Phase::Second,
                orthodox: self.orthodox,
                // Only an en-passant S1 keeps the other rights (rules 2.3).
                capturable: match en_passant {
                    Some(used) => self
                        .capturable
                        .iter()
                        .copied()
                        .filter(|&t| t != used)
                        .collect(),
                    None => Vec::new(),
                },
                made: double_step.into_iter().collect(),
            },
            Phase::Second => ends_turn(self.made.iter().copied().chain(double_step).collect()),
        }
    }
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
