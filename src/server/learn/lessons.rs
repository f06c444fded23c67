//! The lessons of "Learn Marseillais", as data: each step a position and a goal the rules core
//! checks ([`super::goal`]). The words (titles, goals, explanations) are the client's i18n keys:
//! `learn.lesson.<id>.title`, `learn.lesson.<id>.intro`, `learn.step.<id>.<n>` (n from 1).
//!
//! Every position here is checked by the tests below: it reads, its goal is reachable in one
//! turn, and a known wrong try is judged wrong for the reason the page will show.

use crate::rules::{Piece, Square};

use super::goal::Goal;
use super::lesson::{Kind, Lesson, LessonId, Step};
use super::reason::Reason;

pub static LESSONS: [Lesson; 10] = [
    Lesson {
        id: LessonId::MovingTwice,
        kind: Kind::Rules,
        steps: &[
            // Ra1xa5, Ra5xe5.
            Step {
                fen: "7k/8/8/n3b3/8/8/8/R3K3 w - - 0 5",
                goal: Goal::Capture(&[Square::A5, Square::E5]),
                last_turn: &[],
                right: Reason::TwoCaptures,
            },
            // Ne4xf6, Nf6xd7.
            Step {
                fen: "7k/3r4/5b2/8/4N3/8/8/1K6 w - - 0 5",
                goal: Goal::Capture(&[Square::F6, Square::D7]),
                last_turn: &[],
                right: Reason::TwoCaptures,
            },
        ],
    },
    Lesson {
        id: LessonId::FirstTurn,
        kind: Kind::Rules,
        steps: &[
            // 1. e4: the game's first turn is one sub-move.
            Step {
                fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                goal: Goal::Reach(&[(Piece::Pawn, Square::E4)]),
                last_turn: &[],
                right: Reason::FirstTurnOneMove,
            },
            // 1... Nc6,Nf6: Black's first turn is already two.
            Step {
                fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                goal: Goal::Reach(&[(Piece::Knight, Square::C6), (Piece::Knight, Square::F6)]),
                last_turn: &["e2e4"],
                right: Reason::TwoMovesEachTurn,
            },
        ],
    },
    Lesson {
        id: LessonId::CheckEndsTurn,
        kind: Kind::Rules,
        steps: &[
            // Any check with the first sub-move (Qd7+, Qa4+, Qe2+, ...).
            Step {
                fen: "4k3/pp4pp/8/8/8/8/PP4PP/3QK3 w - - 0 5",
                goal: Goal::CheckFirst,
                last_turn: &[],
                right: Reason::CheckEndsTurn,
            },
            // Rh1xh5 (quiet), then Qa4+ / Qe2+ / Rh8+.
            Step {
                fen: "4k3/8/8/7n/8/8/8/3QK2R w K - 0 5",
                goal: Goal::CaptureThenCheck(Square::H5),
                last_turn: &[],
                right: Reason::QuietThenCheck,
            },
        ],
    },
    Lesson {
        id: LessonId::OutOfCheck,
        kind: Kind::Rules,
        steps: &[
            // In check from e8: Nc7xe8 answers it, then Ra1xa5.
            Step {
                fen: "4r2k/2N5/8/n7/8/8/8/R3K3 w - - 0 5",
                goal: Goal::Capture(&[Square::E8, Square::A5]),
                last_turn: &[],
                right: Reason::OutOfCheckFirst,
            },
        ],
    },
    Lesson {
        id: LessonId::EnPassant,
        kind: Kind::Rules,
        steps: &[
            // Black played d7-d5 and f7-f5: exd6 e.p., then gxf6 e.p.
            Step {
                fen: "4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6",
                goal: Goal::EnPassantTwice { first: Square::D6 },
                last_turn: &["d7d5", "f7f5"],
                right: Reason::EnPassantEitherOrder,
            },
            // White played c2-c4 and e2-e4: this time the other order, fxe3 e.p., then bxc3 e.p.
            Step {
                fen: "4k3/8/8/8/1pP1Pp2/8/8/4K3 b - c3,e3 0 6",
                goal: Goal::EnPassantTwice { first: Square::E3 },
                last_turn: &["c2c4", "e2e4"],
                right: Reason::EnPassantEitherOrder,
            },
        ],
    },
    Lesson {
        id: LessonId::KingThroughCheck,
        kind: Kind::Rules,
        steps: &[
            // O-O would cross f1, which the rook on f2 attacks: O-O-O.
            Step {
                fen: "r3k2r/8/8/8/8/8/5r2/R3K2R w KQ - 0 5",
                goal: Goal::Castle,
                last_turn: &[],
                right: Reason::CastleNotThroughCheck,
            },
            // Ke2 then Kxd2 is not allowed (e2 is attacked): Kxd2 at once.
            Step {
                fen: "4k3/8/8/8/8/8/3r4/4K3 w - - 0 5",
                goal: Goal::Capture(&[Square::D2]),
                last_turn: &[],
                right: Reason::KingNeverInCheck,
            },
        ],
    },
    Lesson {
        id: LessonId::SecondMoveStalemate,
        kind: Kind::Rules,
        steps: &[
            // Lost: g2-g4 leaves no second sub-move, a draw.
            Step {
                fen: "1r5k/8/8/6p1/8/p7/P5P1/K7 w - - 0 5",
                goal: Goal::Stalemate,
                last_turn: &[],
                right: Reason::StalemateSaves,
            },
            // Take the knight: g2-g3, gxh4 (g2-g4 would stalemate yourself).
            Step {
                fen: "1r5k/8/8/6p1/7n/p7/P5P1/K7 w - - 0 5",
                goal: Goal::Capture(&[Square::H4]),
                last_turn: &[],
                right: Reason::AvoidedStalemate,
            },
        ],
    },
    Lesson {
        id: LessonId::DoubleAttack,
        kind: Kind::Strategy,
        steps: &[
            // The queen attacks the rook and the bishop: Qxb7, then Qxf7+ (the check last).
            Step {
                fen: "6k1/1r3b2/8/8/8/1Q6/8/6K1 w - - 0 5",
                goal: Goal::Capture(&[Square::B7, Square::F7]),
                last_turn: &[],
                right: Reason::CheckingCaptureLast,
            },
        ],
    },
    Lesson {
        id: LessonId::DoubleThreat,
        kind: Kind::Strategy,
        steps: &[
            // Black threatens Rd1 mate, or a quiet sub-move and then the mate: make room.
            Step {
                fen: "3r2k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 5",
                goal: Goal::NoMateReply,
                last_turn: &[],
                right: Reason::ThreatGuarded,
            },
        ],
    },
    Lesson {
        id: LessonId::WonEnding,
        kind: Kind::Strategy,
        steps: &[
            // Qxd7+: the king takes back, and the a-pawn queens.
            Step {
                fen: "8/3q4/4k3/8/P7/8/3Q4/3K4 w - - 0 5",
                goal: Goal::WonEnding,
                last_turn: &[],
                right: Reason::TradedIntoWonEnding,
            },
        ],
    },
];

/// The lesson with this id.
pub fn lesson(id: LessonId) -> &'static Lesson {
    LESSONS
        .iter()
        .find(|lesson| lesson.id == id)
        .unwrap_or(&LESSONS[0])
}

#[cfg(test)]
mod tests {
    use super::super::judge::{Verdict, judge, start};
    use super::*;
    use crate::rules::SubMove;

    fn moves(text: &str) -> Vec<SubMove> {
        text.split(',').map(|m| m.parse().unwrap()).collect()
    }

    fn verdict(id: LessonId, step: usize, text: &str) -> Verdict {
        judge(&lesson(id).steps[step], &moves(text))
            .unwrap()
            .verdict
    }

    /// Every complete turn from the step's start: its sub-moves.
    fn turns(step: &Step) -> Vec<Vec<SubMove>> {
        let position = start(step).unwrap();
        let mut out = Vec::new();
        for first in position.legal_submoves() {
            match judge(step, &[first]).unwrap().verdict {
                Verdict::Continue => {
                    let after = position.play_unchecked(first);
                    for second in after.legal_submoves() {
                        out.push(vec![first, second]);
                    }
                }
                _ => out.push(vec![first]),
            }
        }
        out
    }

    #[test]
    fn the_lessons_are_listed_once_each_in_their_id_order() {
        let ids: Vec<LessonId> = LESSONS.iter().map(|lesson| lesson.id).collect();
        assert_eq!(ids, LessonId::ALL);
        for id in LessonId::ALL {
            assert_eq!(LessonId::from_key(id.as_str()), Some(id));
            let wire = serde_json::to_value(id).unwrap();
            assert_eq!(wire, serde_json::json!(id.as_str()));
        }
    }

    #[test]
    fn every_step_reads_and_its_goal_is_reachable_in_one_turn() {
        for lesson in &LESSONS {
            assert!(!lesson.steps.is_empty() && lesson.steps.len() <= 5);
            for (n, step) in lesson.steps.iter().enumerate() {
                let position = start(step).unwrap_or_else(|e| panic!("{:?} {n}: {e}", lesson.id));
                assert!(position.board_outcome().is_none(), "{:?} {n}", lesson.id);
                for uci in step.last_turn {
                    let shown: SubMove = uci.parse().unwrap();
                    assert_eq!(
                        position.board().color_on(shown.to),
                        Some(!position.side_to_move()),
                        "{:?} {n}: the opponent's {uci} ends on its piece",
                        lesson.id
                    );
                }
                let right = turns(step)
                    .iter()
                    .filter(|turn| judge(step, turn).unwrap().verdict == Verdict::Right(step.right))
                    .count();
                assert!(
                    right > 0,
                    "{:?} step {n}: no turn reaches the goal",
                    lesson.id
                );
            }
        }
    }

    #[test]
    fn moving_twice_is_two_captures_and_one_capture_is_not_enough() {
        let id = LessonId::MovingTwice;
        assert_eq!(
            verdict(id, 0, "a1a5,a5e5"),
            Verdict::Right(Reason::TwoCaptures)
        );
        assert_eq!(verdict(id, 0, "a1a5"), Verdict::Continue);
        assert_eq!(
            verdict(id, 0, "e1e2,a1a5"),
            Verdict::Wrong(Reason::MissedCapture)
        );
        assert_eq!(
            verdict(id, 1, "e4f6,f6d7"),
            Verdict::Right(Reason::TwoCaptures)
        );
        assert_eq!(
            verdict(id, 1, "e4f6,f6g4"),
            Verdict::Wrong(Reason::MissedCapture)
        );
    }

    #[test]
    fn the_first_turn_is_one_sub_move_and_black_answers_with_two() {
        let id = LessonId::FirstTurn;
        assert_eq!(
            verdict(id, 0, "e2e4"),
            Verdict::Right(Reason::FirstTurnOneMove)
        );
        assert_eq!(verdict(id, 0, "d2d4"), Verdict::Wrong(Reason::NotReached));
        assert_eq!(verdict(id, 1, "b8c6"), Verdict::Continue);
        assert_eq!(
            verdict(id, 1, "g8f6,b8c6"),
            Verdict::Right(Reason::TwoMovesEachTurn)
        );
        assert_eq!(
            verdict(id, 1, "e7e5,d7d5"),
            Verdict::Wrong(Reason::NotReached)
        );
    }

    #[test]
    fn a_check_ends_the_turn_so_the_check_comes_after_a_quiet_sub_move() {
        let id = LessonId::CheckEndsTurn;
        assert_eq!(
            verdict(id, 0, "d1d7"),
            Verdict::Right(Reason::CheckEndsTurn)
        );
        assert_eq!(verdict(id, 0, "e1e2"), Verdict::Wrong(Reason::NoCheckFirst));
        assert_eq!(
            verdict(id, 1, "h1h5,d1a4"),
            Verdict::Right(Reason::QuietThenCheck)
        );
        assert_eq!(
            verdict(id, 1, "d1e2"),
            Verdict::Wrong(Reason::CheckEndedTurn)
        );
        assert_eq!(
            verdict(id, 1, "h1h5,e1f1"),
            Verdict::Wrong(Reason::NoCheckSecond)
        );
    }

    #[test]
    fn the_first_sub_move_answers_the_check_and_the_second_is_free() {
        let id = LessonId::OutOfCheck;
        assert_eq!(
            verdict(id, 0, "c7e8,a1a5"),
            Verdict::Right(Reason::OutOfCheckFirst)
        );
        assert_eq!(
            verdict(id, 0, "e1d2,c7e8"),
            Verdict::Wrong(Reason::MissedCapture)
        );
        // Ignoring the check is not a wrong try but an illegal sub-move.
        let step = &lesson(id).steps[0];
        assert!(judge(step, &moves("a1a5")).is_err());
    }

    #[test]
    fn en_passant_twice_in_either_order_and_a_quiet_first_sub_move_ends_the_rights() {
        let id = LessonId::EnPassant;
        assert_eq!(
            verdict(id, 0, "e5d6,g5f6"),
            Verdict::Right(Reason::EnPassantEitherOrder)
        );
        assert_eq!(verdict(id, 0, "g5f6"), Verdict::Wrong(Reason::WrongOrder));
        assert_eq!(verdict(id, 0, "e5e6"), Verdict::Wrong(Reason::RightsLapsed));
        assert_eq!(
            verdict(id, 0, "e5d6,e1e2"),
            Verdict::Wrong(Reason::MissedSecondEnPassant)
        );
        assert_eq!(
            verdict(id, 1, "f4e3,b4c3"),
            Verdict::Right(Reason::EnPassantEitherOrder)
        );
        assert_eq!(verdict(id, 1, "b4c3"), Verdict::Wrong(Reason::WrongOrder));
        // After a quiet first sub-move the rule itself forbids the capture.
        let step = &lesson(id).steps[0];
        assert!(judge(step, &moves("e1e2,e5d6")).is_err());
    }

    #[test]
    fn the_king_never_crosses_or_stands_on_an_attacked_square() {
        let id = LessonId::KingThroughCheck;
        assert_eq!(verdict(id, 0, "e1c1"), Verdict::Continue);
        assert_eq!(
            verdict(id, 0, "e1c1,h1h2"),
            Verdict::Right(Reason::CastleNotThroughCheck)
        );
        assert_eq!(
            verdict(id, 0, "h1h2,a1a2"),
            Verdict::Wrong(Reason::NotCastled)
        );
        let step = &lesson(id).steps[0];
        assert!(judge(step, &moves("e1g1")).is_err(), "O-O crosses f1");
        assert_eq!(verdict(id, 1, "e1d2"), Verdict::Continue);
        assert_eq!(
            verdict(id, 1, "e1d2,d2c3"),
            Verdict::Right(Reason::KingNeverInCheck)
        );
        assert_eq!(
            verdict(id, 1, "e1f1,f1g1"),
            Verdict::Wrong(Reason::MissedCapture)
        );
        let step = &lesson(id).steps[1];
        assert!(judge(step, &moves("e1e2")).is_err(), "e2 is attacked");
    }

    #[test]
    fn a_first_sub_move_that_leaves_no_second_is_a_draw_to_seek_or_to_avoid() {
        let id = LessonId::SecondMoveStalemate;
        assert_eq!(
            verdict(id, 0, "g2g4"),
            Verdict::Right(Reason::StalemateSaves)
        );
        assert_eq!(
            verdict(id, 0, "g2g3,g3g4"),
            Verdict::Wrong(Reason::GameGoesOn)
        );
        assert_eq!(
            verdict(id, 1, "g2g3,g3h4"),
            Verdict::Right(Reason::AvoidedStalemate)
        );
        assert_eq!(verdict(id, 1, "g2g4"), Verdict::Wrong(Reason::Stalemated));
    }

    #[test]
    fn the_double_attack_takes_the_quiet_capture_first_and_the_checking_one_last() {
        let id = LessonId::DoubleAttack;
        assert_eq!(
            verdict(id, 0, "b3b7,b7f7"),
            Verdict::Right(Reason::CheckingCaptureLast)
        );
        assert_eq!(
            verdict(id, 0, "b3f7"),
            Verdict::Wrong(Reason::CheckEndedTurn)
        );
    }

    #[test]
    fn guarding_the_double_threat_leaves_the_opponent_no_mating_turn() {
        let id = LessonId::DoubleThreat;
        assert_eq!(
            verdict(id, 0, "h2h3,g1h2"),
            Verdict::Right(Reason::ThreatGuarded)
        );
        assert_eq!(
            verdict(id, 0, "g1f1,f1g1"),
            Verdict::Wrong(Reason::MateThreatLeft)
        );
    }

    #[test]
    fn trading_queens_leaves_a_won_pawn_ending_and_a_lost_pawn_does_not() {
        let id = LessonId::WonEnding;
        assert_eq!(
            verdict(id, 0, "d2d7"),
            Verdict::Right(Reason::TradedIntoWonEnding)
        );
        assert_eq!(
            verdict(id, 0, "a4a5,a5a6"),
            Verdict::Wrong(Reason::TheyKeepPieces)
        );
    }

    #[test]
    fn sub_moves_after_the_turn_or_after_a_wrong_first_are_refused() {
        let step = &lesson(LessonId::FirstTurn).steps[0];
        assert!(judge(step, &moves("e2e4,e7e5")).is_err());
        let step = &lesson(LessonId::CheckEndsTurn).steps[0];
        assert!(judge(step, &moves("e1e2,e2e1")).is_err());
    }
}
