//! A game's memory grows by its record alone: one sub-move (3 bytes) per
//! sub-move played, plus repetition keys bounded by the 75-move rule. It
//! used to keep every position and a key per position (the figure printed
//! as "before"). Run with `--nocapture` to see the figures
//! (docs/performance.md, "A game's memory per sub-move").

use std::mem::size_of;

use marseillais::rules::{Game, Position, SubMove};

/// A long game of pseudo-random legal sub-moves (a fixed xorshift seed),
/// played until it ends or `limit` sub-moves.
fn long_game(seed: u64, limit: usize) -> Game {
    let mut game = Game::new(Position::initial());
    let mut state = seed;
    while game.outcome().is_none() && game.submoves().len() < limit {
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
fn a_games_memory_grows_by_one_sub_move_per_sub_move_and_keeps_few_repetition_keys() {
    let before_per_submove =
        size_of::<Position>() + size_of::<Option<u64>>() + size_of::<SubMove>();
    for seed in [0x9E37_79B9_7F4A_7C15, 7, 12345] {
        let game = long_game(seed, 5000);
        let n = game.submoves().len();
        assert!(n >= 100, "seed {seed}: only {n} sub-moves");
        assert!(game.kept_repetition_keys() <= 151);
        // Vectors at most double their length.
        let bound = 2 * n * size_of::<SubMove>() + 2 * 151 * 16;
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
            (n + 1) * (size_of::<Position>() + size_of::<Option<u64>>())
                + std::mem::size_of_val(game.submoves()),
        );
    }
}
