//! A game's memory grows by its record alone: about one byte per sub-move
//! played (each sub-move's index in its position's legal list), plus
//! repetition keys bounded by the 75-move rule. It used to keep every
//! position and a key per position (the figure printed as "before"), then
//! a 3-byte sub-move per sub-move in a vector that doubles. Run with `--nocapture` to see the figures
//! (docs/performance.md, "A game's memory per sub-move").

use std::mem::size_of;

use marseillais::rules::{Game, Position, SubMove};

/// A long game of pseudo-random legal sub-moves (a fixed xorshift seed),
/// played until it ends or `limit` sub-moves.
fn long_game(seed: u64, limit: usize) -> Game {
    let mut game = Game::new(Position::initial());
    let mut state = seed;
    while game.outcome().is_none() && game.submove_count() < limit {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let legal = game.legal_submoves();
        let index = usize::try_from(state % legal.len() as u64).unwrap_or(0);
        let mv = legal[index];
        game.play(mv).expect("a listed sub-move is legal");
    }
    game
}

#[test]
fn a_games_memory_grows_by_about_a_byte_per_sub_move_and_keeps_few_repetition_keys() {
    let before_per_submove =
        size_of::<Position>() + size_of::<Option<u64>>() + size_of::<SubMove>();
    for seed in [0x9E37_79B9_7F4A_7C15, 7, 12345] {
        let game = long_game(seed, 5000);
        let n = game.submove_count();
        assert!(n >= 100, "seed {seed}: only {n} sub-moves");
        assert!(game.kept_repetition_keys() <= 151);
        // The record: a byte per sub-move, two for one past the 128th of
        // its position's legal list, and a sixteenth more (or 32 bytes) of
        // slack; the keys' vector at most doubles; the current legal list.
        let far = game
            .replay()
            .filter(|(before, mv)| {
                before.legal_submoves().iter().position(|m| m == mv) >= Some(128)
            })
            .count();
        let bytes = n + far;
        let bound = bytes + (bytes / 16).max(32) + 2 * 151 * 16 + 486 * size_of::<SubMove>();
        assert!(
            game.heap_bytes() <= bound,
            "seed {seed}: {} bytes for {n} sub-moves",
            game.heap_bytes()
        );
        println!(
            "seed {seed}: {n} sub-moves, heap {} B ({:.1} B/sub-move, keys kept {}), \
             size_of::<Game>() {} B; before: {before_per_submove} B/sub-move \
             (Position {} + key {} + sub-move {}), {} B for this game",
            game.heap_bytes(),
            game.heap_bytes() as f64 / n as f64,
            game.kept_repetition_keys(),
            size_of::<Game>(),
            size_of::<Position>(),
            size_of::<Option<u64>>(),
            size_of::<SubMove>(),
            (n + 1) * (size_of::<Position>() + size_of::<Option<u64>>()) + n * size_of::<SubMove>(),
        );
    }
}

#[test]
fn a_sub_move_past_the_128th_of_its_positions_legal_list_is_replayed_and_taken_back() {
    // The known position with the most legal moves (218).
    let start: Position = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 10"
        .parse()
        .expect("FEN");
    let legal = start.legal_submoves();
    assert!(legal.len() > 128, "{} legal sub-moves", legal.len());
    // The last one that does not give check (a check would end the turn).
    let (index, far) = legal
        .iter()
        .enumerate()
        .rev()
        .find(|(_, mv)| !start.play(**mv).expect("legal").is_check())
        .map(|(i, mv)| (i, *mv))
        .expect("a quiet sub-move");
    assert!(index >= 128, "index {index}");
    let mut game = Game::new(start);
    game.play(far).expect("legal");
    let second = game.legal_submoves()[0];
    assert_eq!(game.submoves(), [far]);
    assert_eq!(game.positions()[1], start.play(far).expect("legal"));
    assert_eq!(game.takeback_first_submove(), Ok(far));
    assert_eq!(game.submove_count(), 0);
    assert_eq!(game.position(), &start);
    // Played again, then a second sub-move after it.
    game.play(far).expect("legal");
    game.play(second).expect("legal");
    assert_eq!(game.submoves(), [far, second]);
}
