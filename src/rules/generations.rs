//! A count of legal-move generations, for proving what a code path costs.
//!
//! Behind the cargo feature `count-generations` (off by default): with it,
//! every full generation of a position's legal sub-moves
//! ([`super::Position::generate`], and so `legal_submoves`) and every early-
//! stopping "is there a legal sub-move" question
//! ([`super::Position::has_legal_submove`]) adds one to a per-thread counter.
//! Per thread, so that tests running side by side do not see each other's
//! counts. Without the feature the counting functions are empty and inlined
//! away, and [`generations`] always answers zero: nothing is paid on the
//! perft or server path.

/// How many generations this thread has run since the last [`reset`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Generations {
    /// Full legal sub-move lists generated.
    pub full: u64,
    /// "Has a legal sub-move" checks (they stop at the first sub-move found).
    pub any: u64,
}

#[cfg(feature = "count-generations")]
mod counter {
    use std::cell::Cell;

    thread_local! {
        pub static FULL: Cell<u64> = const { Cell::new(0) };
        pub static ANY: Cell<u64> = const { Cell::new(0) };
    }
}

/// The counts of this thread since the last [`reset`]; always zero without
/// the `count-generations` feature.
pub fn generations() -> Generations {
    #[cfg(feature = "count-generations")]
    {
        Generations {
            full: counter::FULL.with(|c| c.get()),
            any: counter::ANY.with(|c| c.get()),
        }
    }
    #[cfg(not(feature = "count-generations"))]
    {
        Generations::default()
    }
}

/// Sets this thread's counts back to zero.
pub fn reset() {
    #[cfg(feature = "count-generations")]
    {
        counter::FULL.with(|c| c.set(0));
        counter::ANY.with(|c| c.set(0));
    }
}

/// Whether generations are being counted in this build.
pub const ENABLED: bool = cfg!(feature = "count-generations");

#[inline(always)]
pub(crate) fn count_full() {
    #[cfg(feature = "count-generations")]
    counter::FULL.with(|c| c.set(c.get() + 1));
}

#[inline(always)]
pub(crate) fn count_any() {
    #[cfg(feature = "count-generations")]
    counter::ANY.with(|c| c.set(c.get() + 1));
}
