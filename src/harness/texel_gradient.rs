//! Texel's method over millions of positions: the same error as [`super::texel`] (the mean
//! squared error between the evaluation's win chance and the games' results), minimised by
//! gradient descent instead of the local search, whose round evaluates every position up to
//! twice per number (228 evaluations of the whole set) and which needs dozens of rounds; here
//! the whole set is evaluated once per number, then each epoch is a pass over coefficients.
//!
//! - **Linearised once.** The evaluation is a sum of counts times numbers, blended by the
//!   phase, in every number but the king danger's (squared, capped: [`Weights::linear_numbers`]).
//!   So each position's evaluation is `base + Σ c_i (w_i - w0_i)` exactly (but for the
//!   blend's rounding), with `c_i` measured once by a difference of [`STEP`] centipawns. The
//!   king-danger numbers are held at their values: their term is in `base`.
//! - **Adam** on that model, full batch, on every core: an epoch is one pass over the
//!   coefficients (a few dozen per position), not an evaluation of every position.
//! - The numbers are rounded at the end, and the error of the rounded numbers is measured
//!   again with the real evaluation ([`super::texel::error`]): the model is never trusted for
//!   the figure that decides.

use crate::engine::eval::evaluate_with;
use crate::engine::weights::Weights;
use crate::rules::Color;

use super::texel::Labelled;

/// The difference, in centipawns, that measures a coefficient: large enough that the
/// phase blend's rounding (at most 1 cp) moves a coefficient by at most 1/16.
const STEP: i32 = 16;

/// The positions as the linear model sees them, one row per position (compressed rows).
pub struct Linearised {
    /// White's evaluation at the numbers the rows were measured at.
    base: Vec<f32>,
    /// The game's result for White.
    result: Vec<f32>,
    /// Row `p`'s coefficients are `index[row[p]..row[p + 1]]` and `coefficient[..]`.
    row: Vec<usize>,
    index: Vec<u8>,
    coefficient: Vec<f32>,
    /// Which of [`Weights::numbers`] the model moves.
    free: Vec<bool>,
    start: Vec<f64>,
}

fn white_eval(labelled: &Labelled, weights: &Weights) -> i32 {
    let eval = evaluate_with(&labelled.position, weights);
    match labelled.position.side_to_move() {
        Color::White => eval,
        Color::Black => -eval,
    }
}

fn numbers_of(weights: &Weights) -> Vec<f64> {
    weights
        .clone()
        .numbers()
        .into_iter()
        .map(|n| f64::from(*n))
        .collect()
}

/// Runs `work` on every core over chunks of `0..len`, and returns the chunks' outputs in order.
fn on_every_core<T: Send>(len: usize, work: impl Fn(std::ops::Range<usize>) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = len.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let work = &work;
        let parts: Vec<_> = (0..len)
            .step_by(chunk)
            .map(|from| scope.spawn(move || work(from..(from + chunk).min(len))))
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

impl Linearised {
    /// Measures every position's coefficients at `weights` (one evaluation per free number
    /// and position, on every core).
    pub fn measure(data: &[Labelled], weights: &Weights) -> Linearised {
        let free = Weights::linear_numbers();
        // The numbers with one free number moved by STEP, each with its index.
        let moved: Vec<(u8, Weights)> = (0..free.len())
            .filter(|&i| free[i])
            .map(|i| {
                let mut w = weights.clone();
                *w.numbers()[i] += STEP;
                // 114 numbers today (weights.rs's test); a u8 index keeps the rows small.
                let index = u8::try_from(i).expect("Weights has at most 256 numbers");
                (index, w)
            })
            .collect();
        let rows = on_every_core(data.len(), |range| {
            let mut base = Vec::with_capacity(range.len());
            let mut lengths = Vec::with_capacity(range.len());
            let mut index = Vec::new();
            let mut coefficient = Vec::new();
            for labelled in &data[range] {
                let at = white_eval(labelled, weights);
                base.push(at as f32);
                let before = index.len();
                for (i, w) in &moved {
                    let slope = (white_eval(labelled, w) - at) as f32 / STEP as f32;
                    if slope != 0.0 {
                        index.push(*i);
                        coefficient.push(slope);
                    }
                }
                lengths.push(index.len() - before);
            }
            (base, lengths, index, coefficient)
        });
        let mut model = Linearised {
            base: Vec::with_capacity(data.len()),
            result: data.iter().map(|d| d.white_score as f32).collect(),
            row: vec![0],
            index: Vec::new(),
            coefficient: Vec::new(),
            free,
            start: numbers_of(weights),
        };
        for (base, lengths, index, coefficient) in rows {
            model.base.extend(base);
            for length in lengths {
                let last = model.row.last().copied().unwrap_or(0);
                model.row.push(last + length);
            }
            model.index.extend(index);
            model.coefficient.extend(coefficient);
        }
        model
    }

    pub fn len(&self) -> usize {
        self.base.len()
    }

    pub fn is_empty(&self) -> bool {
        self.base.is_empty()
    }

    /// Coefficients stored, all positions together.
    pub fn coefficients(&self) -> usize {
        self.coefficient.len()
    }

    /// Position `p`'s evaluation for White at `shift` (the numbers minus those measured at).
    fn eval_at(&self, p: usize, shift: &[f64]) -> f64 {
        let cells = self.row[p]..self.row[p + 1];
        f64::from(self.base[p])
            + cells
                .map(|c| f64::from(self.coefficient[c]) * shift[usize::from(self.index[c])])
                .sum::<f64>()
    }

    fn shift(&self, numbers: &[f64]) -> Vec<f64> {
        numbers
            .iter()
            .zip(&self.start)
            .map(|(n, s)| n - s)
            .collect()
    }

    /// The model's mean squared error at `numbers` (in [`Weights::numbers`]' order) and its
    /// gradient, at scale `k`.
    fn error_and_gradient(&self, numbers: &[f64], k: f64) -> (f64, Vec<f64>) {
        let shift = self.shift(numbers);
        let slope = k * std::f64::consts::LN_10 / 400.0;
        let parts = on_every_core(self.len(), |range| {
            let mut sum = 0.0;
            let mut gradient = vec![0.0; numbers.len()];
            for p in range {
                let eval = self.eval_at(p, &shift);
                let chance = 1.0 / (1.0 + (-slope * eval).exp());
                let miss = f64::from(self.result[p]) - chance;
                sum += miss * miss;
                let d_eval = -2.0 * miss * chance * (1.0 - chance) * slope;
                for c in self.row[p]..self.row[p + 1] {
                    gradient[usize::from(self.index[c])] += d_eval * f64::from(self.coefficient[c]);
                }
            }
            (sum, gradient)
        });
        let n = self.len().max(1) as f64;
        let mut total = 0.0;
        let mut gradient = vec![0.0; numbers.len()];
        for (sum, part) in parts {
            total += sum;
            for (g, p) in gradient.iter_mut().zip(part) {
                *g += p;
            }
        }
        gradient.iter_mut().for_each(|g| *g /= n);
        (total / n, gradient)
    }

    /// Adam from the numbers the model was measured at, `epochs` full passes at learning rate
    /// `rate` (centipawns a step at most, roughly); `on_epoch` sees (epoch, model error) every
    /// `report` epochs. Returns the numbers rounded, as `Weights`.
    pub fn fit(
        &self,
        start: &Weights,
        k: f64,
        epochs: u32,
        rate: f64,
        report: u32,
        mut on_epoch: impl FnMut(u32, f64),
    ) -> Weights {
        let (beta1, beta2, epsilon) = (0.9, 0.999, 1e-8);
        let mut numbers = self.start.clone();
        let mut mean = vec![0.0; numbers.len()];
        let mut square = vec![0.0; numbers.len()];
        for epoch in 1..=epochs {
            let (error, gradient) = self.error_and_gradient(&numbers, k);
            if report > 0 && (epoch == 1 || epoch % report == 0) {
                on_epoch(epoch, error);
            }
            let t = i32::try_from(epoch).unwrap_or(i32::MAX);
            for i in (0..numbers.len()).filter(|&i| self.free[i]) {
                mean[i] = beta1 * mean[i] + (1.0 - beta1) * gradient[i];
                square[i] = beta2 * square[i] + (1.0 - beta2) * gradient[i] * gradient[i];
                let m = mean[i] / (1.0 - beta1.powi(t));
                let v = square[i] / (1.0 - beta2.powi(t));
                numbers[i] -= rate * m / (v.sqrt() + epsilon);
            }
        }
        let mut tuned = start.clone();
        for (slot, value) in tuned.numbers().into_iter().zip(&numbers) {
            *slot = value.round() as i32;
        }
        tuned
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::texel;

    fn data(lines: &str) -> Vec<Labelled> {
        texel::parse(lines).expect("data")
    }

    #[test]
    fn the_model_is_the_evaluation_at_the_numbers_it_was_measured_at_and_near_them() {
        let d = data(
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 1 1;1\n\
             4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1;1\n\
             6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1 1;0.5",
        );
        let w = Weights::DEFAULT;
        let model = Linearised::measure(&d, &w);
        assert_eq!(model.len(), 3);
        assert!(model.coefficients() > 0);
        let k = 1.0;
        let (at_start, _) = model.error_and_gradient(&model.start, k);
        assert!((at_start - texel::error(&d, &w, k)).abs() < 1e-6);
        // Move every linear number by 7: the model and the evaluation agree within the
        // blend's rounding.
        let mut moved = w.clone();
        let free = Weights::linear_numbers();
        for (n, f) in moved.numbers().into_iter().zip(&free) {
            if *f {
                *n += 7;
            }
        }
        let shift = model.shift(&numbers_of(&moved));
        for (p, labelled) in d.iter().enumerate() {
            let cells = model.row[p + 1] - model.row[p];
            let off = (model.eval_at(p, &shift) - f64::from(white_eval(labelled, &moved))).abs();
            // Each coefficient is off by at most 2/16 (two roundings), times 7; one more
            // rounding for the real evaluation.
            assert!(off <= 1.0 + 7.0 * 2.0 * cells as f64 / 16.0, "{p}: {off}");
        }
    }

    #[test]
    fn the_gradient_descent_lowers_the_real_error_and_holds_the_king_danger() {
        // A rook up draws, in every position: the rook's worth must fall.
        let d = data(
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1;0.5\n\
             r3k3/8/8/8/8/8/8/4K3 b - - 0 1 1;0.5\n\
             4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1 1;0.5",
        );
        let start = Weights::DEFAULT;
        let model = Linearised::measure(&d, &start);
        let mut errors = Vec::new();
        let tuned = model.fit(&start, 1.0, 300, 4.0, 50, |_, e| errors.push(e));
        assert!(tuned.material[3].1 < start.material[3].1);
        assert!(texel::error(&d, &tuned, 1.0) < texel::error(&d, &start, 1.0));
        assert!(errors.first() > errors.last(), "{errors:?}");
        assert_eq!(tuned.attack_now, start.attack_now);
        assert_eq!(tuned.danger_many, start.danger_many);
        assert_eq!(tuned.material[0].0, 100, "the pawn is the unit");
    }
}
