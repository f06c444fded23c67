//! The evaluation's numbers, in one place, so that the tuner (`tune fit`, Texel's method:
//! docs/engine.md "Tuning the evaluation") can move them and print them back as Rust. Each
//! pair is (middle game, end game) in centipawns; [`super::eval`] says why each term exists.
//!
//! [`Weights::DEFAULT`] is what the engine plays with. The tuner reads positions with their
//! game results, moves each number while the error between the evaluation's win chance and
//! the results falls, and prints a new `DEFAULT` with `{:#?}` (valid Rust for this struct).

/// A middle-game and an end-game value, blended by the material left.
pub type Pair = (i32, i32);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Pawn, knight, bishop, rook, queen.
    pub material: [Pair; 5],
    /// Per square a knight, bishop, rook or queen reaches that no enemy pawn guards, counted
    /// from 4.
    pub mobility: [Pair; 4],
    /// A pawn on each rank from its own side.
    pub pawn_rank: [Pair; 8],
    /// A pawn on d3-e5 (from its side).
    pub pawn_centre: Pair,
    /// A passed pawn on each rank, on top of `pawn_rank`.
    pub passed_rank: [Pair; 8],
    /// Each pawn behind another of its colour on its file.
    pub doubled: Pair,
    /// Each pawn with no pawn of its colour on a neighbouring file.
    pub isolated: Pair,
    pub bishop_pair: Pair,
    /// A rook on a file without pawns, or without pawns of its own colour.
    pub rook_open: Pair,
    pub rook_half_open: Pair,
    pub rook_seventh: Pair,
    /// A rook on files c-f.
    pub rook_centre_file: Pair,
    /// Knight, bishop and queen by distance from the centre (0: d4-e5, 3: the rim's corners).
    pub knight_centre: [Pair; 4],
    pub bishop_centre: [Pair; 4],
    pub queen_centre: [Pair; 4],
    /// The king on its back rank, by file (middle game: hidden beside its rooks).
    pub king_back_rank: [i32; 8],
    /// The king off its back rank, by rank (middle game: exposed).
    pub king_rank: [i32; 8],
    /// The king by distance from the centre (end game: active).
    pub king_centre: [i32; 4],
    /// Attack units of a pawn, knight, bishop, rook or queen that hits the king's zone.
    pub attack_now: [i32; 5],
    /// Attack units of a knight, bishop, rook or queen one move from hitting it.
    pub attack_next: [i32; 4],
    /// King danger is `units² × danger_many` with two or more attackers, else
    /// `units × danger_one`, at most `danger_cap`; a quarter of it counts in the end game.
    pub danger_many: i32,
    pub danger_one: i32,
    pub danger_cap: i32,
    /// Each of the three files in front of a king at home without a pawn one or two ranks up.
    pub shield: i32,
    /// The side to move with two sub-moves to come, and with one.
    pub tempo_first: i32,
    pub tempo_second: i32,
}

impl Weights {
    /// The numbers the engine plays with.
    pub const DEFAULT: Weights = Weights {
        material: [(100, 116), (234, 338), (404, 284), (300, 724), (760, 1096)],
        mobility: [(12, -4), (12, -11), (10, 4), (-7, 18)],
        pawn_rank: [
            (0, 0),
            (-64, 16),
            (-76, 40),
            (-46, 26),
            (-58, 35),
            (-24, 25),
            (46, 198),
            (0, 0),
        ],
        pawn_centre: (4, -48),
        passed_rank: [
            (0, 0),
            (32, 8),
            (-72, 32),
            (0, 32),
            (152, 40),
            (56, 144),
            (-88, 48),
            (0, 0),
        ],
        doubled: (24, -72),
        isolated: (-16, 8),
        bishop_pair: (-160, 152),
        rook_open: (40, -24),
        rook_half_open: (56, 40),
        rook_seventh: (-100, 58),
        rook_centre_file: (-20, 32),
        knight_centre: [(-34, 38), (-44, 60), (-28, 4), (-44, -52)],
        bishop_centre: [(92, -18), (-24, 20), (40, -16), (-10, -53)],
        queen_centre: [(-234, 148), (-220, 72), (-208, 144), (-190, 52)],
        king_back_rank: [-49, -138, 22, 48, 0, -32, 14, 63],
        king_rank: [0, -15, -52, -126, 80, 94, -308, -350],
        king_centre: [-2, 7, 0, -25],
        attack_now: [1, 2, 2, 3, 5],
        attack_next: [1, 1, 1, 3],
        danger_many: 3,
        danger_one: 4,
        danger_cap: 900,
        shield: -17,
        tempo_first: 60,
        tempo_second: -24,
    };

    /// Every number, in a fixed order, for the tuner to move one at a time. Pieces' material
    /// stays positive and the caps stay caps; the tuner checks nothing else.
    pub fn numbers(&mut self) -> Vec<&mut i32> {
        let mut out: Vec<&mut i32> = Vec::new();
        fn pairs<'a>(out: &mut Vec<&'a mut i32>, pairs: &'a mut [Pair]) {
            for (mg, eg) in pairs {
                out.push(mg);
                out.push(eg);
            }
        }
        let Weights {
            material,
            mobility,
            pawn_rank,
            pawn_centre,
            passed_rank,
            doubled,
            isolated,
            bishop_pair,
            rook_open,
            rook_half_open,
            rook_seventh,
            rook_centre_file,
            knight_centre,
            bishop_centre,
            queen_centre,
            king_back_rank,
            king_rank,
            king_centre,
            attack_now,
            attack_next,
            danger_many,
            danger_one,
            danger_cap,
            shield,
            tempo_first,
            tempo_second,
        } = self;
        // The pawn's middle-game value is the unit every other number is measured in: it stays.
        let (pawn, pieces) = material.split_at_mut(1);
        out.push(&mut pawn[0].1);
        pairs(&mut out, pieces);
        pairs(&mut out, mobility);
        // Pawns never stand on their first or last rank.
        pairs(&mut out, &mut pawn_rank[1..7]);
        pairs(&mut out, std::slice::from_mut(pawn_centre));
        pairs(&mut out, &mut passed_rank[1..7]);
        for pair in [
            doubled,
            isolated,
            bishop_pair,
            rook_open,
            rook_half_open,
            rook_seventh,
            rook_centre_file,
        ] {
            pairs(&mut out, std::slice::from_mut(pair));
        }
        pairs(&mut out, knight_centre);
        pairs(&mut out, bishop_centre);
        pairs(&mut out, queen_centre);
        out.extend(king_back_rank.iter_mut());
        out.extend(king_rank[1..].iter_mut());
        out.extend(king_centre.iter_mut());
        out.extend(attack_now.iter_mut());
        out.extend(attack_next.iter_mut());
        out.extend([danger_many, danger_one, shield, tempo_first, tempo_second]);
        // `danger_cap` bounds a sum, not a weight: tuned, it would only follow the others.
        let _ = danger_cap;
        out
    }

    /// For each of [`Weights::numbers`], in that order, whether the evaluation is linear in it
    /// (a count times the number, blended by the phase). The king-danger numbers are not: the
    /// attack units are squared and the danger is capped. The gradient tuner fits only the
    /// linear ones and holds the others.
    pub fn linear_numbers() -> Vec<bool> {
        let mut probe = Weights::DEFAULT;
        let king_danger: Vec<*const i32> = {
            let Weights {
                attack_now,
                attack_next,
                danger_many,
                danger_one,
                ..
            } = &probe;
            attack_now
                .iter()
                .chain(attack_next.iter())
                .chain([danger_many, danger_one])
                .map(|n| n as *const i32)
                .collect()
        };
        probe
            .numbers()
            .into_iter()
            .map(|n| !king_danger.contains(&(n as *const i32)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tuner_moves_every_number_but_the_pawn_unit_and_the_cap() {
        let mut w = Weights::DEFAULT;
        let count = w.numbers().len();
        for n in w.numbers() {
            *n += 1;
        }
        let d = Weights::DEFAULT;
        assert_eq!(w.material[0], (d.material[0].0, d.material[0].1 + 1));
        assert_eq!(w.danger_cap, Weights::DEFAULT.danger_cap);
        assert_eq!(w.tempo_second, Weights::DEFAULT.tempo_second + 1);
        // 1 + 8 + 8 + 12 + 2 + 12 + 14 + 24 + 8 + 7 + 4 + 5 + 4 + 5.
        assert_eq!(count, 114);
        let linear = Weights::linear_numbers();
        assert_eq!(linear.len(), count);
        // Held by the gradient tuner: 5 + 4 attack units, the two danger factors.
        assert_eq!(linear.iter().filter(|&&l| !l).count(), 11);
        assert!(
            linear[0] && linear[count - 1],
            "pawn end game and tempo are linear"
        );
    }

    #[test]
    fn the_debug_print_is_the_rust_of_the_struct() {
        let text = format!("{:#?}", Weights::DEFAULT);
        assert!(text.starts_with("Weights {\n    material: [\n        (\n"));
        let tempo = format!("tempo_second: {},", Weights::DEFAULT.tempo_second);
        assert!(text.contains(&tempo), "{text}");
    }
}
