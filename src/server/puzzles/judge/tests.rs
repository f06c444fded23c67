use super::*;

/// Black hangs a knight (b6-a4) and a bishop (e5-d4); White takes both with the rooks, in
/// either order (neither capture gives check). White's queen could give a check on e8 that
/// ends the turn (Black's king escapes to h7).
const DOUBLE: &str = "6k1/5pp1/1n5p/4b3/8/8/4QPPP/R2R2K1 b - - 0 20";
const DOUBLE_MOVES: &str = "b6a4,e5d4 a1a4,d1d4";

/// The same two captures, then Black's quiet b7-b6,b6-b5, then a back-rank mate: the line
/// mates with Rd4-d8 and Ra4-a8 mates as well.
const MATE: &str = "6k1/1p3ppp/1n6/4b3/8/8/5PPP/R2R2K1 b - - 0 20";
const MATE_MOVES: &str = "b6a4,e5d4 a1a4,d1d4 b7b6,b6b5 d4d8";

fn line(fen: &str, moves: &str) -> PuzzleLine {
    PuzzleLine::parse(fen, moves).unwrap()
}

fn mv(uci: &str) -> SubMove {
    uci.parse().unwrap()
}

fn played(ucis: &[&str]) -> Vec<SubMove> {
    ucis.iter().map(|uci| mv(uci)).collect()
}

#[test]
fn the_lines_turn_played_as_written_is_solved() {
    let line = line(DOUBLE, DOUBLE_MOVES);
    assert_eq!(judge(&line, &played(&["a1a4"])), Ok(Verdict::Continue));
    assert_eq!(
        judge(&line, &played(&["a1a4", "d1d4"])),
        Ok(Verdict::Solved)
    );
}

#[test]
fn the_same_turn_in_the_other_order_is_right() {
    let line = line(DOUBLE, DOUBLE_MOVES);
    assert_eq!(judge(&line, &played(&["d1d4"])), Ok(Verdict::Continue));
    assert_eq!(
        judge(&line, &played(&["d1d4", "a1a4"])),
        Ok(Verdict::Solved)
    );
}

#[test]
fn a_capture_and_a_quiet_submove_swapped_are_right_though_the_move_counters_differ() {
    let line = line(DOUBLE, "b6a4,e5d4 a1a4,g1h1");
    // Rxa4 then Kh1 leaves the halfmove clock at 1, Kh1 then Rxa4 at 0.
    assert_eq!(
        judge(&line, &played(&["g1h1", "a1a4"])),
        Ok(Verdict::Solved)
    );
    assert_eq!(
        judge(&line, &played(&["a1a4", "g1h1"])),
        Ok(Verdict::Solved)
    );
}

#[test]
fn a_wrong_first_submove_expects_the_lines_first() {
    let line = line(DOUBLE, DOUBLE_MOVES);
    assert_eq!(
        judge(&line, &played(&["h2h3"])),
        Ok(Verdict::Wrong {
            expected: mv("a1a4")
        })
    );
}

#[test]
fn a_wrong_second_submove_expects_the_one_that_completes_the_turn_from_the_played_first() {
    let line = line(DOUBLE, DOUBLE_MOVES);
    assert_eq!(
        judge(&line, &played(&["a1a4", "g1h1"])),
        Ok(Verdict::Wrong {
            expected: mv("d1d4")
        })
    );
    // After the line's S2 played first, the expected S2 is the line's S1.
    assert_eq!(
        judge(&line, &played(&["d1d4", "g1h1"])),
        Ok(Verdict::Wrong {
            expected: mv("a1a4")
        })
    );
}

#[test]
fn a_checking_first_submove_ends_the_turn_and_is_wrong_when_the_line_plays_two() {
    let line = line(DOUBLE, DOUBLE_MOVES);
    // Qe8+ ends White's turn after one sub-move: the rooks take nothing.
    assert_eq!(
        judge(&line, &played(&["e2e8"])),
        Ok(Verdict::Wrong {
            expected: mv("a1a4")
        })
    );
    // So nothing can follow it in that turn.
    assert_eq!(
        judge(&line, &played(&["e2e8", "a1a4"])),
        Err(JudgeError::WrongPrefix { at: 1 })
    );
}

#[test]
fn a_right_turn_before_the_last_gets_the_opponents_reply_from_the_line() {
    let line = line(MATE, MATE_MOVES);
    assert_eq!(
        judge(&line, &played(&["a1a4", "d1d4"])),
        Ok(Verdict::Reply(played(&["b7b6", "b6b5"])))
    );
    assert_eq!(
        judge(&line, &played(&["d1d4", "a1a4"])),
        Ok(Verdict::Reply(played(&["b7b6", "b6b5"])))
    );
    assert_eq!(
        judge(&line, &played(&["a1a4", "d1d4", "d4d8"])),
        Ok(Verdict::Solved)
    );
}

#[test]
fn another_mate_on_the_last_turn_is_right() {
    let line = line(MATE, MATE_MOVES);
    // Ra8# instead of Rd8#.
    assert_eq!(
        judge(&line, &played(&["a1a4", "d1d4", "a4a8"])),
        Ok(Verdict::Solved)
    );
    // A quiet S1 is right when an S2 then mates, and the mate by S2 solves.
    assert_eq!(
        judge(&line, &played(&["a1a4", "d1d4", "h2h3"])),
        Ok(Verdict::Continue)
    );
    assert_eq!(
        judge(&line, &played(&["a1a4", "d1d4", "h2h3", "a4a8"])),
        Ok(Verdict::Solved)
    );
}

#[test]
fn a_second_submove_that_misses_the_mate_expects_the_lines_mating_submove() {
    let line = line(MATE, MATE_MOVES);
    assert_eq!(
        judge(&line, &played(&["a1a4", "d1d4", "h2h3", "g1h1"])),
        Ok(Verdict::Wrong {
            expected: mv("d4d8")
        })
    );
}

#[test]
fn a_wrong_prefix_is_refused() {
    let line = line(MATE, MATE_MOVES);
    // h3 is a wrong S1 (no S2 then takes both pieces): an S2 after it is refused too.
    assert_eq!(
        judge(&line, &played(&["h2h3", "g1h1", "a4a8"])),
        Err(JudgeError::WrongPrefix { at: 1 })
    );
    assert_eq!(
        judge(&line, &played(&["h2h3", "g1h1"])),
        Err(JudgeError::WrongPrefix { at: 1 })
    );
    assert_eq!(
        judge(&line, &played(&["a1a4", "g1h1", "a4a8"])),
        Err(JudgeError::WrongPrefix { at: 2 })
    );
}

#[test]
fn an_empty_an_illegal_or_a_too_long_list_is_refused() {
    let line = line(DOUBLE, DOUBLE_MOVES);
    assert_eq!(judge(&line, &[]), Err(JudgeError::Empty));
    // The knight on a4 stands in the rook's way.
    assert_eq!(
        judge(&line, &played(&["a1a5"])),
        Err(JudgeError::Illegal {
            at: 1,
            submove: mv("a1a5")
        })
    );
    // The bishop on d4 stands in the other rook's way.
    assert_eq!(
        judge(&line, &played(&["a1a4", "d1d5"])),
        Err(JudgeError::Illegal {
            at: 2,
            submove: mv("d1d5")
        })
    );
    assert_eq!(
        judge(&line, &played(&["a1a4", "d1d4", "h2h3"])),
        Err(JudgeError::PastEnd { at: 3 })
    );
}

#[test]
fn a_mate_solves_the_puzzle_even_before_the_lines_last_turn() {
    // The line waits a turn (h3,Kh2) before Ra8#; Ra8# at once ends the game, so it solves.
    let fen = "6k1/1p3ppp/8/8/8/8/5PPP/R5K1 b - - 0 20";
    let line = line(fen, "b7b6,b6b5 h2h3,g1h2 b5b4,b4b3 a1a8");
    assert_eq!(judge(&line, &played(&["a1a8"])), Ok(Verdict::Solved));
    assert_eq!(
        judge(&line, &played(&["a1a8", "h2h3"])),
        Err(JudgeError::PastEnd { at: 2 })
    );
    assert_eq!(
        judge(&line, &played(&["h2h3", "g1h2"])),
        Ok(Verdict::Reply(played(&["b5b4", "b4b3"])))
    );
}

#[test]
fn a_hint_is_the_square_of_the_next_right_submove() {
    let double = line(DOUBLE, DOUBLE_MOVES);
    assert_eq!(hint(&double, &[]), Ok(Square::A1));
    assert_eq!(hint(&double, &played(&["a1a4"])), Ok(Square::D1));
    assert_eq!(hint(&double, &played(&["d1d4"])), Ok(Square::A1));
    let mate = line(MATE, MATE_MOVES);
    assert_eq!(hint(&mate, &played(&["a1a4", "d1d4"])), Ok(Square::D4));
    assert_eq!(
        hint(&mate, &played(&["a1a4", "d1d4", "d4d8"])),
        Err(JudgeError::PastEnd { at: 4 })
    );
    assert_eq!(
        hint(&double, &played(&["h2h3"])),
        Err(JudgeError::WrongPrefix { at: 1 })
    );
}
