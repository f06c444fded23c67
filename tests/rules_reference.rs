//! Random Marseillais games replayed against a reference written apart from
//! the engine, sub-move by sub-move.
//!
//! The reference is the rules text itself, kept as a small model of the turn
//! state (side, phase, en-passant rights per rules 2.1-2.4, counters), on top
//! of cozy-chess's orthodox board for the placement, castling rights and the
//! moves of an ordinary position. En-passant captures are derived from the
//! model's rights and judged by cozy-chess's own FEN validation (a position
//! where the side not to move is in check is refused), so no line of the
//! engine's move generator or turn logic is reused. At every step the engine
//! must offer exactly the reference's legal sub-moves, reach the same FEN, and
//! end the game exactly when the reference says.
//!
//! The games are bounded (a fixed number of games, each at most
//! `MAX_SUBMOVES` sub-moves) and seeded, so a failure replays identically.

use std::collections::BTreeSet;
use std::str::FromStr;

use cozy_chess::{Board, Color, File, Move, Piece, Rank, Square};
use marseillais::rules::{Outcome, Phase, Position, SubMove, Termination};

const MAX_SUBMOVES: usize = 160;
const GAMES_PER_START: u64 = 12;

/// Start positions: the real start, the 1925 start (two sub-moves first),
/// and pawn-rich positions where double steps meet enemy pawns on both wings.
const STARTS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1",
    "r3k2r/p1p1p1p1/8/1P1P1P1P/p1p1p1p1/8/1P1P1P1P/R3K2R w KQkq - 0 5",
    "r3k2r/1p1p1p1p/8/P1P1P1P1/1p1p1p1p/8/P1P1P1P1/R3K2R b KQkq - 0 5",
    "4k3/1pp1pp2/8/2P1P3/1p1p1p2/8/2P1P1P1/4K3 w - - 0 20",
];

/// A small deterministic generator (xorshift64*), seeded per game.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The turn state as the rules text describes it.
#[derive(Clone, Debug)]
struct Model {
    /// Placement and castling rights; side to move is the model's side.
    board: Board,
    side: Color,
    phase: Phase,
    /// The opponent's targets from its last turn (rules 2.1).
    their_targets: Vec<Square>,
    /// Targets this sub-move may capture on (rules 2.3).
    usable: Vec<Square>,
    /// Targets made by the mover in this turn (rules 2.1).
    made: Vec<Square>,
    halfmove: u32,
    fullmove: u32,
}

fn square_behind(target: Square, owner: Color) -> Square {
    // The square the owner's pawn reached: one step beyond the target.
    match owner {
        Color::White => Square::new(target.file(), Rank::Fourth),
        Color::Black => Square::new(target.file(), Rank::Fifth),
    }
}

/// Rules 2.2: a right exists while its pawn stands where it arrived and the
/// target square is empty.
fn existing(board: &Board, targets: &[Square], owner: Color) -> Vec<Square> {
    targets
        .iter()
        .copied()
        .filter(|&t| {
            board.piece_on(t).is_none()
                && board.piece_on(square_behind(t, owner)) == Some(Piece::Pawn)
                && board.color_on(square_behind(t, owner)) == Some(owner)
        })
        .collect()
}

/// A cozy-chess board with the given placement, side and castling rights.
fn orthodox_board(board: &Board, side: Color) -> Board {
    let fen = board.to_string();
    let fields: Vec<&str> = fen.split(' ').collect();
    let text = format!("{} {} {} - 0 1", fields[0], side, fields[2]);
    Board::from_fen(&text, false).unwrap_or_else(|e| panic!("reference board {text}: {e:?}"))
}

/// Placement text of a cozy board.
fn placement(board: &Board) -> String {
    board
        .to_string()
        .split(' ')
        .next()
        .unwrap_or("")
        .to_string()
}

fn castling_text(board: &Board) -> String {
    board
        .to_string()
        .split(' ')
        .nth(2)
        .unwrap_or("")
        .to_string()
}

/// UCI text of a cozy move (cozy writes castling as king-takes-rook).
fn uci(board: &Board, mv: Move) -> String {
    let castles = board.piece_on(mv.from) == Some(Piece::King)
        && board.color_on(mv.to) == board.color_on(mv.from);
    let to = if castles {
        let file = if mv.to.file() > mv.from.file() {
            File::G
        } else {
            File::C
        };
        Square::new(file, mv.from.rank())
    } else {
        mv.to
    };
    let promotion = mv
        .promotion
        .map(|p| char::from(p).to_string())
        .unwrap_or_default();
    format!("{}{}{}", mv.from, to, promotion)
}

/// A placement after an en-passant capture, with `to_move` to move, if the
/// capturer's king is safe there (cozy refuses a FEN whose side not to move
/// is in check). Returns the board and whether the opponent is in check.
fn after_en_passant(model: &Model, from: Square, target: Square) -> Option<(Board, bool)> {
    let victim = Square::new(target.file(), from.rank());
    let mut rows: Vec<Vec<char>> = vec![vec!['.'; 8]; 8];
    for square in Square::ALL {
        if let (Some(piece), Some(color)) =
            (model.board.piece_on(square), model.board.color_on(square))
        {
            let letter = char::from(piece);
            rows[square.rank() as usize][square.file() as usize] = match color {
                Color::White => letter.to_ascii_uppercase(),
                Color::Black => letter,
            };
        }
    }
    let pawn = rows[from.rank() as usize][from.file() as usize];
    rows[from.rank() as usize][from.file() as usize] = '.';
    rows[victim.rank() as usize][victim.file() as usize] = '.';
    rows[target.rank() as usize][target.file() as usize] = pawn;
    let mut text = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for &cell in &rows[rank] {
            match cell {
                '.' => empty += 1,
                c => {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    text.push(c);
                }
            }
        }
        if empty > 0 {
            text.push_str(&empty.to_string());
        }
        if rank > 0 {
            text.push('/');
        }
    }
    let castling = castling_text(&model.board);
    let fen = format!("{text} {} {castling} - 0 1", !model.side);
    Board::from_fen(&fen, false)
        .ok()
        .map(|board| (board.clone(), !board.checkers().is_empty()))
}

/// The reference's legal sub-moves: cozy's orthodox moves without en
/// passant, plus the captures on the rights the model grants.
fn reference_moves(model: &Model) -> BTreeSet<String> {
    let board = orthodox_board(&model.board, model.side);
    let mut moves = BTreeSet::new();
    board.generate_moves(|list| {
        for mv in list {
            moves.insert(uci(&board, mv));
        }
        false
    });
    for (from, target) in reference_en_passant(model) {
        moves.insert(format!("{from}{target}"));
    }
    moves
}

fn reference_en_passant(model: &Model) -> Vec<(Square, Square)> {
    let mut captures = Vec::new();
    for &target in &existing(&model.board, &model.usable, !model.side) {
        let victim = square_behind(target, !model.side);
        for df in [-1i8, 1] {
            let Some(from) = victim.try_offset(df, 0) else {
                continue;
            };
            let ours = model.board.piece_on(from) == Some(Piece::Pawn)
                && model.board.color_on(from) == Some(model.side);
            if ours && after_en_passant(model, from, target).is_some() {
                captures.push((from, target));
            }
        }
    }
    captures
}

/// Plays `text` in the model, following the rules text.
fn model_play(model: &mut Model, text: &str) {
    let board = orthodox_board(&model.board, model.side);
    let us = model.side;
    let from: Square = text[0..2].parse().unwrap_or_else(|_| panic!("{text}"));
    let to: Square = text[2..4].parse().unwrap_or_else(|_| panic!("{text}"));
    let moved = board.piece_on(from);
    let en_passant =
        moved == Some(Piece::Pawn) && from.file() != to.file() && board.piece_on(to).is_none();
    let capture = board.piece_on(to).is_some() || en_passant;
    let (next_board, gives_check) = if en_passant {
        after_en_passant(model, from, to).unwrap_or_else(|| panic!("illegal e.p. {text}"))
    } else {
        let mut cozy_move = None;
        board.generate_moves(|list| {
            for mv in list {
                if uci(&board, mv) == text {
                    cozy_move = Some(mv);
                }
            }
            false
        });
        let mv = cozy_move.unwrap_or_else(|| panic!("reference has no move {text}"));
        let mut next = board.clone();
        next.play(mv);
        let check = !next.checkers().is_empty();
        (next, check)
    };
    model.board = next_board;
    model.halfmove = if moved == Some(Piece::Pawn) || capture {
        0
    } else {
        model.halfmove + 1
    };
    if moved == Some(Piece::Pawn) && (from.rank() as i8 - to.rank() as i8).abs() == 2 {
        model
            .made
            .push(Square::new(from.file(), Rank::Third.relative_to(us)));
    }
    let turn_ends = match model.phase {
        Phase::Single | Phase::Second => true,
        Phase::First => gives_check, // rule 1.4
    };
    if turn_ends {
        // 2.4: the mover's rights from the opponent lapse; its own double
        // steps that still exist become the opponent's rights.
        model.their_targets = existing(&model.board, &model.made, us);
        model.usable = model.their_targets.clone();
        model.made.clear();
        model.side = !us;
        model.phase = Phase::First;
        if us == Color::Black {
            model.fullmove += 1;
        }
    } else {
        // 2.3: S2 may capture en passant only after an en-passant S1.
        model.usable = if en_passant {
            let rest: Vec<Square> = model
                .their_targets
                .iter()
                .copied()
                .filter(|&t| t != to)
                .collect();
            existing(&model.board, &rest, !us)
        } else {
            Vec::new()
        };
        model.phase = Phase::Second;
    }
}

/// The FEN the spec says the model's state writes as (section 5).
fn model_fen(model: &Model) -> String {
    let targets: Vec<Square> = match model.phase {
        Phase::Second if model.made.is_empty() => {
            existing(&model.board, &model.usable, !model.side)
        }
        Phase::Second => existing(&model.board, &model.made, model.side),
        _ => existing(&model.board, &model.their_targets, !model.side),
    };
    let mut sorted = targets;
    sorted.sort_by_key(|&s| s as usize);
    let ep = if sorted.is_empty() {
        "-".to_string()
    } else {
        sorted
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let default = if model.side == Color::White && model.fullmove == 1 {
        Phase::Single
    } else {
        Phase::First
    };
    let phase = if model.phase == default {
        String::new()
    } else {
        format!(
            " {}",
            match model.phase {
                Phase::Single => 's',
                Phase::First => '1',
                Phase::Second => '2',
            }
        )
    };
    format!(
        "{} {} {} {} {} {}{}",
        placement(&model.board),
        model.side,
        castling_text(&model.board),
        ep,
        model.halfmove,
        model.fullmove,
        phase
    )
}

fn model_from(position: &Position) -> Model {
    let fen = position.fen();
    let fields: Vec<&str> = fen.split(' ').collect();
    let board = Board::from_fen(
        &format!("{} {} {} - 0 1", fields[0], fields[1], fields[2]),
        false,
    )
    .unwrap_or_else(|e| panic!("{fen}: {e:?}"));
    let their: Vec<Square> = position.ep_targets().into_iter().collect();
    Model {
        board,
        side: position.side_to_move(),
        phase: position.phase(),
        usable: their.clone(),
        their_targets: their,
        made: Vec::new(),
        halfmove: position.halfmove_clock(),
        fullmove: position.fullmove_number(),
    }
}

/// Rules section 3, counted square by square: kings only, one knight, or
/// bishops standing on squares of one colour only.
fn reference_insufficient(board: &Board) -> bool {
    let mut knights = 0;
    let mut bishop_colours = BTreeSet::new();
    for square in Square::ALL {
        match board.piece_on(square) {
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

/// Prefers en passant and double steps so that the rules of section 2 are
/// exercised often; otherwise any legal sub-move.
fn choose(rng: &mut Rng, position: &Position, legal: &[SubMove]) -> SubMove {
    let en_passant: Vec<SubMove> = legal
        .iter()
        .copied()
        .filter(|m| position.is_en_passant(*m))
        .collect();
    if !en_passant.is_empty() && rng.below(4) != 0 {
        return en_passant[rng.below(en_passant.len())];
    }
    let double_steps: Vec<SubMove> = legal
        .iter()
        .copied()
        .filter(|m| {
            position.board().pieces(Piece::Pawn).has(m.from)
                && (m.from.rank() as i8 - m.to.rank() as i8).abs() == 2
        })
        .collect();
    if !double_steps.is_empty() && rng.below(3) == 0 {
        return double_steps[rng.below(double_steps.len())];
    }
    legal[rng.below(legal.len())]
}

#[test]
fn random_games_match_the_reference_sub_move_by_sub_move() {
    let mut en_passant_played = 0;
    let mut second_submove_en_passant = 0;
    let mut checks_ending_turns = 0;
    let mut endings = 0;
    for (index, start_fen) in STARTS.iter().enumerate() {
        for game in 0..GAMES_PER_START {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (index as u64 * 1_000 + game + 1));
            let mut position: Position = start_fen.parse().unwrap_or_else(|e| panic!("{e}"));
            let mut model = model_from(&position);
            let mut history = Vec::new();
            for _ in 0..MAX_SUBMOVES {
                let where_ = format!("{start_fen} after {history:?}");
                assert_eq!(position.fen(), model_fen(&model), "FEN differs: {where_}");
                let reread = Position::from_str(&position.fen());
                assert_eq!(reread.as_ref(), Ok(&position), "FEN reads back: {where_}");
                let legal = position.legal_submoves();
                let ours: BTreeSet<String> = legal.iter().map(|m| m.to_string()).collect();
                assert_eq!(
                    ours,
                    reference_moves(&model),
                    "legal sub-moves differ: {where_}"
                );
                if legal.is_empty() {
                    let expected = match (model.phase, position.is_check()) {
                        (Phase::Second, _) => Termination::SecondMoveStalemate,
                        (_, true) => Termination::Checkmate,
                        (_, false) => Termination::Stalemate,
                    };
                    let outcome = position.board_outcome().map(Outcome::reason);
                    assert_eq!(outcome, Some(expected), "{where_}");
                    endings += 1;
                    break;
                }
                if model.phase != Phase::Second {
                    let draw = if reference_insufficient(&model.board) {
                        Some(Termination::InsufficientMaterial)
                    } else if model.halfmove >= 150 {
                        Some(Termination::SeventyFiveMoveRule)
                    } else {
                        None
                    };
                    let outcome = position.board_outcome().map(Outcome::reason);
                    assert_eq!(outcome, draw, "{where_}");
                    if draw.is_some() {
                        endings += 1;
                        break;
                    }
                } else {
                    assert_eq!(position.board_outcome(), None, "{where_}");
                }
                let mv = choose(&mut rng, &position, &legal);
                if position.is_en_passant(mv) {
                    en_passant_played += 1;
                    if position.phase() == Phase::Second {
                        second_submove_en_passant += 1;
                    }
                }
                let was_first = position.phase() == Phase::First;
                let text = mv.to_string();
                position = position
                    .play(mv)
                    .unwrap_or_else(|e| panic!("{text}: {e} at {where_}"));
                model_play(&mut model, &text);
                if was_first && position.phase() != Phase::Second {
                    checks_ending_turns += 1;
                }
                history.push(text);
            }
        }
    }
    // The games must actually have exercised the rules they check.
    assert!(
        en_passant_played >= 20,
        "only {en_passant_played} e.p. captures"
    );
    assert!(
        second_submove_en_passant >= 3,
        "only {second_submove_en_passant} e.p. on S2"
    );
    assert!(
        checks_ending_turns >= 10,
        "only {checks_ending_turns} checks on S1"
    );
    assert!(endings >= 1, "no game ended on the board");
}
