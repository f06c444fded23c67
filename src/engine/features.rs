//! The search techniques that can be switched on and off, so that the match harness can play
//! the engine with and without one of them (`level:8+nmp` against `level:8`). A technique is on
//! by default only once an SPRT accepted it; the table of those tests is in `docs/engine.md`
//! ("Changes and their tests"). A technique that lost stays here, off, with its result.

use std::fmt;

/// One search technique.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// Late-move reductions of quiet sub-moves.
    Lmr,
    /// The null move: passing a whole turn at a turn start.
    NullMove,
    /// Reverse futility: a turn start whose static score beats beta by a margin for the
    /// depth is cut.
    ReverseFutility,
    /// Late-move pruning: at low depth, quiet sub-moves late in the order are not searched.
    LateMovePruning,
    /// Aspiration windows around the previous iteration's score.
    Aspiration,
    /// Futility pruning: at a shallow S2 (the sub-move that ends the turn) far below alpha,
    /// quiet sub-moves are not searched.
    Futility,
    /// Singular extensions: the table's move is searched one sub-move deeper when every
    /// other sub-move falls clearly short of it.
    Singular,
    /// Capture history orders captures of equal MVV-LVA by what cut before.
    CaptureHistory,
    /// Continuation history orders quiet sub-moves by what cut after the two sub-moves
    /// before.
    ContinuationHistory,
}

impl Feature {
    pub const ALL: [Feature; 9] = [
        Feature::Lmr,
        Feature::NullMove,
        Feature::ReverseFutility,
        Feature::LateMovePruning,
        Feature::Aspiration,
        Feature::Futility,
        Feature::Singular,
        Feature::CaptureHistory,
        Feature::ContinuationHistory,
    ];

    /// The name on the harness's command line.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Lmr => "lmr",
            Feature::NullMove => "nmp",
            Feature::ReverseFutility => "rfp",
            Feature::LateMovePruning => "lmp",
            Feature::Aspiration => "asp",
            Feature::Futility => "fp",
            Feature::Singular => "se",
            Feature::CaptureHistory => "caph",
            Feature::ContinuationHistory => "conth",
        }
    }

    pub fn from_name(name: &str) -> Option<Feature> {
        Feature::ALL.into_iter().find(|f| f.name() == name)
    }

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// A set of techniques.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Features(u32);

impl Default for Features {
    /// The techniques the SPRTs accepted.
    fn default() -> Features {
        Features::NONE
            .with(Feature::Lmr, true)
            .with(Feature::ReverseFutility, true)
            .with(Feature::LateMovePruning, true)
            .with(Feature::Aspiration, true)
            .with(Feature::Futility, true)
            .with(Feature::CaptureHistory, true)
            .with(Feature::Singular, true)
    }
}

impl Features {
    pub const NONE: Features = Features(0);

    pub fn has(self, feature: Feature) -> bool {
        self.0 & feature.bit() != 0
    }

    /// This set with `feature` switched `on` or off.
    #[must_use]
    pub fn with(self, feature: Feature, on: bool) -> Features {
        if on {
            Features(self.0 | feature.bit())
        } else {
            Features(self.0 & !feature.bit())
        }
    }
}

impl fmt::Debug for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(
                Feature::ALL
                    .into_iter()
                    .filter(|&x| self.has(x))
                    .map(Feature::name),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_is_found_by_its_name_and_has_its_own_bit() {
        let mut all = Features::NONE;
        for feature in Feature::ALL {
            assert_eq!(Feature::from_name(feature.name()), Some(feature));
            assert!(!all.has(feature));
            all = all.with(feature, true);
            assert!(all.has(feature));
        }
        assert_eq!(Feature::from_name("nope"), None);
    }

    /// A technique is on by default only once its SPRT accepted it (docs/engine.md, "Changes
    /// and their tests"): switching one on or off here without a test must fail.
    #[test]
    fn the_defaults_are_the_techniques_the_sprts_accepted() {
        let mut on: Vec<&str> = Feature::ALL
            .into_iter()
            .filter(|&f| Features::default().has(f))
            .map(Feature::name)
            .collect();
        on.sort_unstable();
        assert_eq!(on, ["asp", "caph", "fp", "lmp", "lmr", "rfp", "se"]);
    }
}
