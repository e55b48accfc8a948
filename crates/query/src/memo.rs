//! `extract` of a literal regex remembered per worker ([`Memo`]): log fields repeat (a
//! request path, a level, a host name), so the same text often meets the same regex again a
//! few lines later, and a look-up in a small table costs less than a regex search.
//!
//! Invariants:
//! - The answer is a function of the text alone (the regex and the group are fixed by the
//!   plan, [`crate::ir::Extract::memo`]), so a remembered answer is the one the search would
//!   give: the memo only changes the time.
//! - The table is direct-mapped (one slot per hash value, a newer text replaces an older
//!   one) and of fixed size; texts longer than [`LONGEST`] bytes are searched every time and
//!   never copied. A slot keeps its text's buffer, so once warm a miss allocates nothing
//!   either, and the capture positions are read into one reused [`CaptureLocations`].
//!
//! ```text
//! extract(text):
//!     slot = table[hash(text) mod SLOTS]
//!     if slot holds text: return text[slot.range]        (or null: no match)
//!     range = search(regex, text, group)
//!     slot = (text, range)
//!     return text[range]
//! ```

use std::hash::BuildHasher;
use std::ops::Range;

use regex::{CaptureLocations, Regex};

/// Slots of a memo (a power of two).
const SLOTS: usize = 256;

/// Texts longer than this are not remembered.
const LONGEST: usize = 256;

/// One `extract`'s remembered answers (see the module docs); kept in the worker's scratch.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    /// Allocated on first use.
    slots: Vec<Slot>,
    locs: Option<CaptureLocations>,
}

#[derive(Debug, Default)]
struct Slot {
    filled: bool,
    text: String,
    found: Option<Range<usize>>,
}

impl Memo {
    /// Where group `group` of the first match of `re` in `text` is (`None`: no match, or the
    /// group did not take part), remembered for the next time `text` comes.
    #[inline]
    pub(crate) fn find(&mut self, re: &Regex, group: usize, text: &str) -> Option<Range<usize>> {
        if text.len() > LONGEST {
            return search(re, group, text, &mut self.locs);
        }
        if self.slots.is_empty() {
            self.slots.resize_with(SLOTS, Slot::default);
        }
        // A fixed seed: a crafted input can only make the memo miss, never slower than the
        // search it stands for.
        let hash = foldhash::fast::FixedState::default().hash_one(text.as_bytes());
        let slot = &mut self.slots[hash as usize & (SLOTS - 1)];
        if slot.filled && slot.text == text {
            return slot.found.clone();
        }
        let found = search(re, group, text, &mut self.locs);
        slot.filled = true;
        slot.text.clear();
        slot.text.push_str(text);
        slot.found = found.clone();
        found
    }
}

/// Group `group` of the first match of `re` in `text` (0: the whole match).
fn search(
    re: &Regex,
    group: usize,
    text: &str,
    locs: &mut Option<CaptureLocations>,
) -> Option<Range<usize>> {
    if group == 0 {
        return re.find(text).map(|m| m.range());
    }
    let locs = locs.get_or_insert_with(|| re.capture_locations());
    re.captures_read(locs, text)?;
    locs.get(group).map(|(a, b)| a..b)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What `Regex::captures` gives, the plain way.
    fn plain(re: &Regex, group: usize, text: &str) -> Option<Range<usize>> {
        re.captures(text)
            .and_then(|c| c.get(group))
            .map(|m| m.range())
    }

    #[test]
    fn remembered_answers_equal_the_search() {
        let re = Regex::new(r"^/api/([a-z]+)(/(\d+))?|(x)").expect("regex");
        // More distinct texts than slots, each coming back, some longer than a slot keeps,
        // some matching without the optional group.
        let texts: Vec<String> = (0..3000)
            .map(|i| match i % 5 {
                0 => format!("/api/orders/{}", i % 700),
                1 => "/health".to_owned(),
                2 => format!("/api/{}", "q".repeat(i % 400)),
                3 => format!("x{i}"),
                _ => format!("/api/users/{}", i % 13),
            })
            .collect();
        for group in 0..re.captures_len() {
            let mut memo = Memo::default();
            for _ in 0..2 {
                for t in &texts {
                    assert_eq!(
                        memo.find(&re, group, t),
                        plain(&re, group, t),
                        "{group} {t}"
                    );
                }
            }
        }
    }

    proptest! {
        #[test]
        fn memo_agrees_with_captures(texts in prop::collection::vec("[/a-c0-9é]{0,12}", 1..200)) {
            let re = Regex::new(r"/([a-c]+)(\d)?").expect("regex");
            for group in 0..3 {
                let mut memo = Memo::default();
                for t in texts.iter().chain(&texts) {
                    prop_assert_eq!(memo.find(&re, group, t), plain(&re, group, t));
                }
            }
        }
    }
}
