//! Four two-sided sticks: the value is the number of marked faces up, and
//! four blank faces count as 5. There is never a 0.

use std::fmt;

/// The value a throw shows, always in 1..=5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Roll(u8);

impl Roll {
    /// Every value, in order, for code that branches over all throws.
    pub const ALL: [Roll; 5] = [Roll(1), Roll(2), Roll(3), Roll(4), Roll(5)];

    /// `None` unless `value` is in 1..=5.
    pub const fn new(value: u8) -> Option<Roll> {
        if value >= 1 && value <= 5 {
            Some(Roll(value))
        } else {
            None
        }
    }

    pub const fn value(self) -> u8 {
        self.0
    }

    /// Out of 16 equally likely stick patterns, how many show this value.
    pub const fn weight_in_16(self) -> u32 {
        match self.0 {
            1 | 3 => 4,
            2 => 6,
            _ => 1,
        }
    }

    /// The chance of this value with fair sticks.
    pub fn probability(self) -> f64 {
        f64::from(self.weight_in_16()) / 16.0
    }

    /// A move made with a 1, 4 or 5 earns the same side another throw.
    pub const fn grants_extra_throw(self) -> bool {
        matches!(self.0, 1 | 4 | 5)
    }
}

impl fmt::Display for Roll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One throw of the four sticks: bit `i` set means stick `i` shows its
/// marked face. Kept as sticks (not only a value) so clients can draw them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sticks(u8);

impl Sticks {
    /// Only the low four bits are used; the rest are ignored.
    pub const fn from_bits(bits: u8) -> Sticks {
        Sticks(bits & 0x0f)
    }

    pub const fn bits(self) -> u8 {
        self.0
    }

    pub fn from_faces(faces: [bool; 4]) -> Sticks {
        let bits = faces
            .iter()
            .enumerate()
            .fold(0u8, |acc, (i, &up)| acc | (u8::from(up) << i));
        Sticks(bits)
    }

    /// `true` for each stick showing its marked face.
    pub fn faces(self) -> [bool; 4] {
        std::array::from_fn(|i| self.0 & (1 << i) != 0)
    }

    pub const fn roll(self) -> Roll {
        match self.0.count_ones() {
            0 => Roll(5),
            n => Roll(n as u8),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_sixteen_patterns_give_the_documented_distribution() {
        let mut counts = [0u32; 6];
        for bits in 0..16 {
            counts[Sticks::from_bits(bits).roll().value() as usize] += 1;
        }
        for roll in Roll::ALL {
            assert_eq!(counts[roll.value() as usize], roll.weight_in_16(), "{roll}");
        }
        assert_eq!(counts[0], 0, "there is never a 0");
    }

    #[test]
    fn faces_round_trip() {
        for bits in 0..16 {
            let sticks = Sticks::from_bits(bits);
            assert_eq!(Sticks::from_faces(sticks.faces()), sticks);
        }
    }

    #[test]
    fn roll_new_rejects_out_of_range() {
        assert!(Roll::new(0).is_none());
        assert!(Roll::new(6).is_none());
        assert_eq!(Roll::new(3).map(Roll::value), Some(3));
    }
}
