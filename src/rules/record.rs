//! The sub-moves of a game, one byte each: every live game on a server keeps its whole record
//! for as long as it is played, and at 10,000 sub-moves a plain list of [`SubMove`]s (3 bytes
//! each, in a vector whose capacity doubles) held 48 KiB of a game's 24 KiB budget.
//!
//! Each sub-move is kept as its index in the legal list of the position it was played from
//! ([`super::Position::legal_submoves`], whose order is fixed for a given position): the
//! record is read back by replaying the game, one legal-move generation per sub-move, which
//! every reader (SAN, PGN, the `state` snapshot) already pays. A reachable chess position has
//! at most 218 legal moves and a typical one about 30, so an index takes one byte below 128 and
//! two above (up to 16,383: any position the FEN reader accepts has at most 486).
//!
//! The vector grows by a sixteenth at a time, not by doubling: the slack is then at most a
//! sixteenth of the record (plus [`MIN_GROWTH`]), for a copy of the record every sixteenth of
//! its length (16 bytes copied per sub-move on average), which the sub-moves that pass through
//! a server (a few thousand per second) never notice. At 10,000 sub-moves an eighth was 1.2
//! KiB of slack in a game whose budget is 24 KiB.

/// The record grows by its length divided by this.
const GROWTH_DIVISOR: usize = 16;

/// The least a full record grows by, in bytes: a short game reallocates a few times only.
const MIN_GROWTH: usize = 32;

/// The largest index two bytes hold.
pub const MAX_INDEX: usize = (1 << 14) - 1;

/// One byte per index below 128: the second byte's high bit is never set, and a first byte
/// with it set says a second byte follows.
const MORE: u8 = 0x80;

/// A sequence of legal-list indices, one or two bytes each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    bytes: Vec<u8>,
    len: usize,
}

impl Record {
    /// Adds `index`, which must be at most [`MAX_INDEX`] (a legal-list index always is).
    pub fn push(&mut self, index: usize) {
        debug_assert!(index <= MAX_INDEX, "legal-list index {index}");
        let needed = if index < usize::from(MORE) { 1 } else { 2 };
        if self.bytes.capacity() - self.bytes.len() < needed {
            self.bytes
                .reserve_exact((self.bytes.len() / GROWTH_DIVISOR).max(MIN_GROWTH));
        }
        if needed == 1 {
            self.bytes.push(index as u8);
        } else {
            self.bytes.push(MORE | ((index >> 7) & 0x7f) as u8);
            self.bytes.push((index & 0x7f) as u8);
        }
        self.len += 1;
    }

    /// Takes the last index off.
    pub fn pop(&mut self) -> Option<usize> {
        let last = usize::from(self.bytes.pop()?);
        self.len -= 1;
        // A byte before it with the high bit set is the first of the same index: the last
        // byte of every index has it clear.
        match self.bytes.last() {
            Some(&first) if first & MORE != 0 => {
                self.bytes.pop();
                Some((usize::from(first & !MORE) << 7) | last)
            }
            _ => Some(last),
        }
    }

    /// How many indices it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The indices, first to last.
    pub fn indices(&self) -> Indices<'_> {
        Indices {
            bytes: self.bytes.iter(),
        }
    }

    /// The heap memory it holds.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
    }
}

/// The indices of a [`Record`], first to last.
pub struct Indices<'a> {
    bytes: std::slice::Iter<'a, u8>,
}

impl Iterator for Indices<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let first = *self.bytes.next()?;
        if first & MORE == 0 {
            return Some(usize::from(first));
        }
        // `push` always writes the second byte of a two-byte index.
        let second = self.bytes.next().copied().unwrap_or(0);
        Some((usize::from(first & !MORE) << 7) | usize::from(second))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_read_back_in_order_whether_one_or_two_bytes() {
        let mut record = Record::default();
        let indices = [0, 1, 127, 128, 129, 217, 485, MAX_INDEX, 30, 0];
        for &index in &indices {
            record.push(index);
        }
        assert_eq!(record.len(), indices.len());
        assert_eq!(record.indices().collect::<Vec<_>>(), indices);
        // Five indices below 128, five above.
        assert_eq!(record.bytes.len(), 5 + 2 * 5);
    }

    #[test]
    fn pop_takes_back_the_last_index_whatever_its_size() {
        let mut record = Record::default();
        let indices = [5, 300, 7, 128, 127, 200];
        for &index in &indices {
            record.push(index);
        }
        for (n, &index) in indices.iter().enumerate().rev() {
            assert_eq!(record.pop(), Some(index));
            assert_eq!(record.len(), n);
            assert_eq!(record.indices().collect::<Vec<_>>(), indices[..n]);
        }
        assert_eq!(record.pop(), None);
        assert!(record.is_empty());
    }

    #[test]
    fn a_long_record_holds_a_byte_per_index_and_at_most_a_sixteenth_more() {
        let mut record = Record::default();
        for n in 0..10_000 {
            record.push(n % 40);
            let len = record.bytes.len();
            assert!(
                record.heap_bytes() <= len + (len / 16).max(MIN_GROWTH) + 1,
                "{} bytes held for {len}",
                record.heap_bytes()
            );
        }
        assert_eq!(record.bytes.len(), 10_000);
    }
}
