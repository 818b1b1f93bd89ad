//! What a dynamic query's archetype view has lent: which columns (or fields
//! of them), shared or unique. Kept inline for the usual few, so visiting an
//! archetype allocates nothing.

/// One loan: the query term, the lane (a field of a per-field column) or
/// `WHOLE`, and whether it is unique.
pub(super) type Loan = (usize, usize, bool);

/// Loans held inline before the list spills to the heap: a view lends one
/// column or field per term it touches, rarely more than a few.
const INLINE: usize = 8;

/// The loans of one archetype view, cleared between archetypes.
#[derive(Default)]
pub(super) struct Ledger {
    inline: [Loan; INLINE],
    len: usize,
    spilled: Vec<Loan>,
}

impl Ledger {
    /// Every loan held.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Loan> {
        self.inline[..self.len].iter().chain(&self.spilled)
    }

    /// `true` when exactly `loan` is held.
    pub(super) fn contains(&self, loan: &Loan) -> bool {
        self.iter().any(|held| held == loan)
    }

    /// Records `loan`.
    pub(super) fn push(&mut self, loan: Loan) {
        if self.len < INLINE {
            self.inline[self.len] = loan;
            self.len += 1;
        } else {
            self.spilled.push(loan);
        }
    }

    /// Forgets every loan (the view that held them is gone).
    pub(super) fn clear(&mut self) {
        self.len = 0;
        self.spilled.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loans_past_the_inline_ones_are_kept_too() {
        let mut ledger = Ledger::default();
        for term in 0..20 {
            ledger.push((term, 0, term % 2 == 0));
        }
        assert_eq!(ledger.iter().count(), 20);
        assert!(ledger.contains(&(3, 0, false)) && ledger.contains(&(18, 0, true)));
        assert!(!ledger.contains(&(3, 0, true)));
        ledger.clear();
        assert_eq!(ledger.iter().count(), 0);
        ledger.push((1, 2, false));
        assert!(ledger.contains(&(1, 2, false)));
    }
}
