//! `--long-games` (and `--mode memory`): how a random player keeps its game going for ten
//! thousand sub-moves and more, so that the cost of a long game can be measured.
//!
//! A random game ends within a few hundred sub-moves, mostly by mate. Three things end a game
//! that nobody is trying to end, and the choice avoids each:
//! - **an ending made by the sub-move itself** (mate, stalemate, no second sub-move, too little
//!   material): every candidate is played on the position first, and one that ends the game is
//!   chosen only when nothing else is legal;
//! - **the 75-move rule** (150 sub-moves without a capture or pawn move): quiet piece moves
//!   while the halfmove clock is far from 150, then the sub-move that resets it: a pawn push
//!   (the scarce resource: about 32 before the pawns block each other, if each goes one
//!   square at a time), else a capture (a
//!   pawn first: the file it opens gives the blocked pawn facing it more pushes), else a piece
//!   move into the other half, to find something to capture;
//! - **fivefold repetition:** pieces wander at random among many squares, so a turn-start
//!   position seldom comes back five times.
//!
//! Played against itself from the initial position, 31 games of 32 passed 10,000 sub-moves
//! (9,579 to 12,841; the test below plays 8); the previous choice (pawn moves but no
//! captures, no look at what a sub-move ends) ran out of resets before 4,000.

use marseillais::rules::{Color, Piece, Position, Rank, SubMove};

use crate::rng::Rng;

/// From this halfmove clock on, a player looks for a sub-move that resets it. Low enough
/// that both sides get a few turns to find one before 150; high enough that most of the 150
/// sub-moves each pawn push or capture buys are used.
const RESET_FROM: u32 = 140;

/// The index in `legal` of the sub-move to play in the position `fen` (the server's FEN,
/// which `legal` belongs to). A FEN that does not read gives a random sub-move.
pub fn choose(legal: &[SubMove], fen: &str, rng: &mut Rng) -> usize {
    match fen.parse::<Position>() {
        Ok(position) => choose_in(&position, legal, rng),
        Err(_) => rng.below(legal.len()),
    }
}

/// What a candidate sub-move does, in the order a player prefers them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A quiet piece move that stays in the mover's own half: pieces that stay home rarely
    /// gang up on the other king.
    Home,
    /// A quiet piece move into the other half.
    Away,
    /// A pawn move of one square that captures nothing.
    Push,
    /// A pawn's first move by two squares: one reset for two of the squares its file has
    /// between the pawns, where single steps give two.
    DoublePush,
    /// A capture of a pawn.
    TakesPawn,
    /// Any other capture.
    Takes,
}

/// [`choose`] on a position already read.
fn choose_in(position: &Position, legal: &[SubMove], rng: &mut Rng) -> usize {
    let preference: &[Kind] = if position.halfmove_clock() < RESET_FROM {
        &[
            Kind::Home,
            Kind::Away,
            Kind::Push,
            Kind::DoublePush,
            Kind::TakesPawn,
            Kind::Takes,
        ]
    } else {
        &[
            Kind::Push,
            Kind::DoublePush,
            Kind::TakesPawn,
            Kind::Takes,
            Kind::Away,
            Kind::Home,
        ]
    };
    for &kind in preference {
        let mut pool: Vec<usize> = (0..legal.len())
            .filter(|&i| kind_of(position, legal[i]) == kind)
            .collect();
        // In random order, the first that does not end the game.
        while !pool.is_empty() {
            let i = pool.swap_remove(rng.below(pool.len()));
            if !ends_the_game(position, legal[i]) {
                return i;
            }
        }
    }
    rng.below(legal.len())
}

fn kind_of(position: &Position, mv: SubMove) -> Kind {
    let board = position.board();
    if position.is_capture(mv) {
        // En passant takes a pawn from a square that is not `to`.
        return match board.piece_on(mv.to) {
            Some(Piece::Pawn) | None => Kind::TakesPawn,
            Some(_) => Kind::Takes,
        };
    }
    if board.piece_on(mv.from) == Some(Piece::Pawn) {
        return if mv.from.rank() as i32 - mv.to.rank() as i32 == 1
            || mv.to.rank() as i32 - mv.from.rank() as i32 == 1
        {
            Kind::Push
        } else {
            Kind::DoublePush
        };
    }
    let home = match position.side_to_move() {
        Color::White => mv.to.rank() <= Rank::Fourth,
        Color::Black => mv.to.rank() >= Rank::Fifth,
    };
    if home { Kind::Home } else { Kind::Away }
}

/// Whether `mv` ends the game on the board, or all but dooms it. The repetition rule needs the
/// game's history, which the player does not keep; material is judged at once (the board judges
/// it only at a turn's start); and a capture that leaves the other side a king and one man is
/// refused too: a king that is nearly alone soon has no second sub-move (of 8 games played
/// without this, one ended so at 9,853 sub-moves).
fn ends_the_game(position: &Position, mv: SubMove) -> bool {
    let Ok(after) = position.play(mv) else {
        return true;
    };
    let starves =
        || position.is_capture(mv) && after.board().colored(!position.side_to_move()).len() < 3;
    after.board_outcome().is_some() || after.is_insufficient_material() || starves()
}

#[cfg(test)]
mod tests {
    use super::*;
    use marseillais::rules::Game;
    use std::collections::BTreeSet;

    fn legal(moves: &[&str]) -> Vec<SubMove> {
        moves.iter().map(|m| m.parse().expect("uci")).collect()
    }

    fn fen_with_halfmove(halfmove: u32) -> String {
        format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - {halfmove} 1")
    }

    /// Every index [`choose`] gives over 20 draws from one seed.
    fn choices(moves: &[SubMove], fen: &str, seed: u64) -> BTreeSet<usize> {
        let mut rng = Rng::new(seed);
        (0..20).map(|_| choose(moves, fen, &mut rng)).collect()
    }

    #[test]
    fn far_from_the_75_move_limit_a_player_moves_a_piece_in_its_own_half() {
        let moves = legal(&["e2e4", "g1f3", "b1c3"]);
        let chosen = choices(&moves, &fen_with_halfmove(10), 7);
        assert!(chosen.is_subset(&BTreeSet::from([1, 2])), "{chosen:?}");
    }

    #[test]
    fn near_the_75_move_limit_a_player_pushes_a_pawn() {
        let moves = legal(&["g1f3", "e2e4", "b1c3"]);
        assert_eq!(
            choices(&moves, &fen_with_halfmove(140), 7),
            BTreeSet::from([1])
        );
    }

    #[test]
    fn near_the_limit_with_no_pawn_push_a_player_captures_a_pawn_before_a_piece() {
        // White has no pawn; its knight can take the pawn on d7 or the knight on f7.
        let fen = "r3k3/3p1n2/8/4N3/8/8/8/4K2R w K - 140 60";
        let moves = legal(&["e5d7", "e5f7", "h1h2"]);
        assert_eq!(choices(&moves, fen, 3), BTreeSet::from([0]));
    }

    #[test]
    fn a_sub_move_that_ends_the_game_is_played_only_when_nothing_else_is_legal() {
        // Qg7 is mate (a quiet piece move into the other half, like Qg5); the rook moves
        // home. Far from the limit a home move comes first anyway: so look near it, where the
        // queen's moves into the other half come before the rook's home moves.
        let fen = "7k/8/6K1/8/8/8/8/R5Q1 w - - 140 60";
        let moves = legal(&["g1g7", "g1g5", "a1a2"]);
        assert_eq!(choices(&moves, fen, 5), BTreeSet::from([1]));
        assert_eq!(choices(&legal(&["g1g7"]), fen, 5), BTreeSet::from([0]));
    }

    /// Plays a game against itself from the initial position; the number of sub-moves played
    /// when it ended, or `limit`.
    fn self_play(seed: u64, limit: usize) -> usize {
        let mut game = Game::new(Position::initial());
        let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for played in 0..limit {
            if game.outcome().is_some() {
                return played;
            }
            let legal = game.legal_submoves().to_vec();
            let mv = legal[choose_in(game.position(), &legal, &mut rng)];
            game.play(mv).expect("a legal sub-move");
        }
        limit
    }

    #[test]
    fn games_chosen_this_way_pass_ten_thousand_sub_moves() {
        let lengths: Vec<usize> = (1..=8).map(|seed| self_play(seed, 10_000)).collect();
        assert!(lengths.iter().all(|&n| n == 10_000), "{lengths:?}");
    }
}
