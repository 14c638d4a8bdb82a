//! "Needs practice" (issue 50 item 3): a pupil's page reports each piece they touched that the
//! engine refused, by the rule that refused it ([`crate::engine::IllegalMove::code`]); the class
//! counts them per pupil and rule, and the teacher's page shows each pupil's rules beside the
//! `/learn` lesson that teaches it.
//!
//! Bounded: only the rules below are counted (a pupil cannot make the server keep any other
//! text), so a pupil has at most [`RULES`]`.len()` rows, and each count stops at [`MAX_COUNT`].

use super::ClassError;

/// The rules a pupil can stumble on, each with the lesson of `lessons/lessons.json` that
/// teaches it (the first lesson whose claims name that refusal). `game_over` and
/// `no_own_piece` are not rules of the game a pupil misreads: not counted.
pub const RULES: [(&str, &str); 5] = [
    ("must_stop_on_26", "must-stop-26"),
    ("blocked", "block-land"),
    ("safe_square", "safe-15"),
    ("not_exact_to_bear_off", "bear-off-exact"),
    ("occupied_by_own", "bear-off-exact"),
];

/// Where a count stops: enough to tell "once" from "again and again".
pub const MAX_COUNT: i64 = 999;

/// The rule as counted, or a clear error naming the rules that are.
pub fn check_rule(rule: &str) -> Result<&'static str, ClassError> {
    RULES
        .iter()
        .find(|(known, _)| *known == rule)
        .map(|(known, _)| *known)
        .ok_or_else(|| {
            let known: Vec<&str> = RULES.iter().map(|(rule, _)| *rule).collect();
            ClassError::Bad(format!("rule is one of {}", known.join(", ")))
        })
}

/// The lesson that teaches `rule`.
pub fn lesson_for(rule: &str) -> Option<&'static str> {
    RULES
        .iter()
        .find(|(known, _)| *known == rule)
        .map(|(_, lesson)| *lesson)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_an_engine_refusal_taught_by_a_lesson_that_exists() {
        use crate::engine::IllegalMove;
        let refusals = [
            IllegalMove::OccupiedByOwn(1),
            IllegalMove::SafeSquare(15),
            IllegalMove::Blocked(3),
            IllegalMove::MustStopOn26,
            IllegalMove::NotExactToBearOff,
        ];
        let lessons = crate::lessons::lessons().unwrap();
        for refusal in refusals {
            let rule = check_rule(refusal.code()).unwrap();
            let lesson = lesson_for(rule).unwrap();
            assert!(lessons.iter().any(|l| l.id == lesson), "{lesson}");
        }
        assert!(check_rule("game_over").is_err());
        assert!(check_rule("x".repeat(5000).as_str()).is_err());
    }
}
