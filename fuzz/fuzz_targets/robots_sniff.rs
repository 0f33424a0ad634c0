//! The "is this a robots.txt at all" decision on arbitrary bytes.
//!
//! Properties: nothing panics; `sniff` (the quick look every face uses) and
//! the full parse's `not_robots` agree exactly; and a body classed as not a
//! robots.txt has no group with a rule, so no garbage can turn a policy
//! into "no policy" (a `Disallow` that parses is always obeyed).

#![no_main]

use libfuzzer_sys::fuzz_target;
use webcanon_core::robots::{Robots, sniff};

fuzz_target!(|data: &[u8]| {
    let robots = Robots::parse(data);
    let quick = sniff(data);
    assert_eq!(quick, robots.not_robots(), "sniff and the parse disagree");
    if quick.is_some() {
        let rules = robots.groups().map(|g| g.rules().filter(|r| !r.pattern.is_empty()).count()).sum::<usize>();
        assert_eq!(rules, 0, "a body with {rules} rules was classed as not a robots.txt");
    }
});
