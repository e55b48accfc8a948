//! `extract` of a literal regex remembered per worker ([`Memo`]): log fields repeat (a
//! request path, a level, a host name), so the same text often meets the same regex again a
//! few lines later, and a look-up in a small table costs less than a regex search.
//!
//! What is remembered is keyed by the part of the text that *decides* the answer: the bytes
//! the regex's lazy DFA reads before it reaches its dead state (after which no match can
//! begin, end or grow), or the whole text when it never does. `^/api/([a-z]+)` decides
//! `/api/orders/4711` on `/api/orders/4` and `/health` on `/h`, so a path with an id in it,
//! seen once, is answered from the slot of every other id of its endpoint.
//!
//! Invariants:
//! - The answer is a function of the deciding prefix: the DFA is deterministic, so a text
//!   that starts with the same bytes drives it into the dead state at the same byte, and
//!   the leftmost-first match it would report (which the `regex` crate's engines all agree
//!   on), and so the capture groups inside that match, lie within those bytes. A regex that
//!   can match the empty text gets no DFA (the `regex` crate's rule for empty matches inside
//!   a UTF-8 character could look past them), nor does one the lazy DFA cannot build
//!   (a Unicode word boundary): their key is the whole text. A DFA that gives up (a quit
//!   byte, its cache exhausted) keys the whole text too. So a remembered answer is the one
//!   the search would give: the memo only changes the time.
//! - The table is direct-mapped (one slot per hash value, a newer key replaces an older
//!   one) and of fixed size; keys longer than [`LONGEST`] bytes are searched every time and
//!   never copied (the DFA reads at most that far). A slot keeps its key's buffer, so once
//!   warm a miss allocates nothing either, and the capture positions are read into one
//!   reused [`CaptureLocations`].
//! - The walk costs about what a search does on a text it reads to the end, so it pauses
//!   (the key is then the whole text, an answer as good) for [`PAUSE`] look-ups when fewer
//!   than a quarter of the last [`CHECK`] look-ups it keyed found their answer.
//!
//! ```text
//! extract(text):
//!     key = the prefix of text the DFA reads before its dead state (else text)
//!     slot = table[hash(key) mod SLOTS]
//!     if slot holds key: return text[slot.range]         (or null: no match)
//!     range = search(regex, text, group)
//!     slot = (key, range)
//!     return text[range]
//! ```

use std::hash::BuildHasher;
use std::ops::Range;

use regex::{CaptureLocations, Regex};
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson::{NFA, WhichCaptures};
use regex_automata::util::start;

/// Slots of a memo (a power of two).
const SLOTS: usize = 1024;

/// Keys longer than this are not remembered.
const LONGEST: usize = 256;

/// Look-ups keyed by the DFA's prefix between two checks of their hit rate.
const CHECK: u32 = 256;

/// Look-ups keyed by the whole text after a check found the prefix keys of little use.
const PAUSE: u32 = 16 * 1024;

/// One `extract`'s remembered answers (see the module docs); kept in the worker's scratch.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    /// Allocated on first use.
    slots: Vec<Slot>,
    locs: Option<CaptureLocations>,
    /// The regex's lazy DFA, made on first use (`Some(None)`: the regex has none).
    reader: Option<Option<Reader>>,
    /// Look-ups keyed by the DFA's prefix since the last check, and how many of them hit.
    walked: u32,
    hits: u32,
    /// Look-ups left before the DFA is walked again (see [`Memo::tally`]).
    paused: u32,
}

#[derive(Debug, Default)]
struct Slot {
    filled: bool,
    key: Vec<u8>,
    found: Option<Range<usize>>,
}

/// The lazy DFA of a regex and this worker's cache of its states.
#[derive(Debug)]
struct Reader {
    dfa: DFA,
    cache: Cache,
}

impl Reader {
    /// The DFA of `pattern` (a `regex::Regex`'s own text, so the same syntax and flags), or
    /// `None` when the pattern can match the empty text or the lazy DFA cannot be built.
    fn new(pattern: &str) -> Option<Reader> {
        let nfa = NFA::compiler()
            .configure(NFA::config().which_captures(WhichCaptures::None))
            .build(pattern)
            .ok()?;
        if nfa.has_empty() {
            return None;
        }
        let dfa = DFA::builder().build_from_nfa(nfa).ok()?;
        let cache = dfa.create_cache();
        Some(Reader { dfa, cache })
    }

    /// How many leading bytes of `text` decide the first match (see the module docs): the
    /// bytes read up to and including the one that leads to the dead state; `text.len()`
    /// when none does within the first [`LONGEST`] + 1 bytes or the DFA gives up.
    #[inline]
    fn decided(&mut self, text: &[u8]) -> usize {
        let Ok(mut sid) = self.dfa.start_state(&mut self.cache, &start::Config::new()) else {
            return text.len();
        };
        if sid.is_dead() {
            return 0;
        }
        for (i, &b) in text.iter().enumerate().take(LONGEST + 1) {
            match self.dfa.next_state(&mut self.cache, sid, b) {
                Ok(next) if next.is_dead() => return i + 1,
                Ok(next) if next.is_quit() => return text.len(),
                Ok(next) => sid = next,
                Err(_) => return text.len(),
            }
        }
        text.len()
    }
}

impl Memo {
    /// Where group `group` of the first match of `re` in `text` is (`None`: no match, or the
    /// group did not take part), remembered for the next text that starts with the bytes
    /// that decided it.
    #[inline]
    pub(crate) fn find(&mut self, re: &Regex, group: usize, text: &str) -> Option<Range<usize>> {
        let walk = self.paused == 0;
        let decided = match self.reader.get_or_insert_with(|| Reader::new(re.as_str())) {
            Some(reader) if walk => reader.decided(text.as_bytes()),
            _ => text.len(),
        };
        self.paused = self.paused.saturating_sub(1);
        let key = text
            .as_bytes()
            .get(..decided)
            .filter(|k| k.len() <= LONGEST);
        let (found, hit) = match key {
            Some(key) => self.look_up(re, group, text, key),
            None => (search(re, group, text, &mut self.locs), false),
        };
        if walk {
            self.tally(hit);
        }
        found
    }

    /// [`Memo::find`] of a key short enough to keep: the answer, and whether it was
    /// remembered.
    #[inline]
    fn look_up(
        &mut self,
        re: &Regex,
        group: usize,
        text: &str,
        key: &[u8],
    ) -> (Option<Range<usize>>, bool) {
        if self.slots.is_empty() {
            self.slots.resize_with(SLOTS, Slot::default);
        }
        // A fixed seed: a crafted input can only make the memo miss, never slower than the
        // search it stands for.
        let hash = foldhash::fast::FixedState::default().hash_one(key);
        let slot = &mut self.slots[hash as usize & (SLOTS - 1)];
        // A remembered range lies inside the key (see the module docs); the check keeps a
        // broken rule from ever cutting another text out of bounds.
        if slot.filled && slot.key == key && slot.found.as_ref().is_none_or(|r| r.end <= key.len())
        {
            return (slot.found.clone(), true);
        }
        let found = search(re, group, text, &mut self.locs);
        slot.filled = true;
        slot.key.clear();
        slot.key.extend_from_slice(key);
        slot.found = found.clone();
        (found, false)
    }

    /// Count a look-up keyed by the DFA's prefix; after [`CHECK`] of them, pause the DFA for
    /// [`PAUSE`] look-ups (keys are whole texts meanwhile) when fewer than a quarter hit:
    /// texts that differ inside the part that decides (a number in a message) gain nothing
    /// from the walk.
    #[inline]
    fn tally(&mut self, hit: bool) {
        self.walked += 1;
        self.hits += u32::from(hit);
        if self.walked == CHECK {
            if self.hits * 4 < CHECK {
                self.paused = PAUSE;
            }
            self.walked = 0;
            self.hits = 0;
        }
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
        agrees_twice_through(&re, &texts);
    }

    /// Each group of `re` found in every text twice over through one memo per group (the
    /// second pass from what the first remembered) gives the search's answer.
    fn agrees_twice_through(re: &Regex, texts: &[String]) {
        for group in 0..re.captures_len() {
            let mut memo = Memo::default();
            for _ in 0..2 {
                for t in texts {
                    assert_eq!(
                        memo.find(re, group, t),
                        plain(re, group, t),
                        "{re} {group} {t}"
                    );
                }
            }
        }
    }

    /// Texts that share the bytes a regex's DFA decides on and differ after them (an id
    /// after a path), texts it reads to their end, matches that end at or just before the
    /// deciding byte, `$`, word boundaries, alternations of different lengths, regexes
    /// without `^`, non-ASCII text, a regex that can match the empty text and one with a
    /// Unicode word boundary (no DFA): every answer, whether searched or remembered from
    /// another text, is the one the search gives for that text.
    #[test]
    fn answers_keyed_by_the_deciding_prefix_equal_the_search() {
        let patterns = [
            r"^/api/([a-z]+)",
            r"^/api/([a-z]+)$",
            r"^/api/([a-z]+)(/(\d+))?",
            r"^(/api|/apis)/(x|xyz)",
            r"/([a-z]+)/(\d+)",
            r"(?-u:\b)([a-z]+)(?-u:\b)",
            r"^(é+)(.)",
            r"^a*",
            r"\b(\w+)\b",
            r"^.{3}(.)",
            r"(\d+) ms$",
        ];
        let texts: Vec<String> = (0..600)
            .map(|i| match i % 12 {
                0 => format!("/api/orders/{}", i * 7919 % 1000),
                1 => "/api/orders".to_owned(),
                2 => format!("/api/orders{}", i % 3),
                3 => format!("/apis/xyz{}", i % 5),
                4 => format!("/api/xy/{i}"),
                5 => format!("/health{}", "z".repeat(i % 300)),
                6 => format!("é{}x{}", "é".repeat(i % 4), i % 7),
                7 => format!("aaa{}", i % 2),
                8 => format!("took {} ms", i % 50),
                9 => format!("/api/Orders/{i}"),
                10 => format!("/{}", "q".repeat(250 + i % 20)),
                _ => String::new(),
            })
            .collect();
        for p in patterns {
            agrees_twice_through(&Regex::new(p).expect("regex"), &texts);
        }
    }

    /// Through the pauses of the DFA and back: texts whose prefix keys miss (numbers in a
    /// message) long enough to pause it, then paths whose prefix keys hit, then both mixed,
    /// for longer than a pause; every answer is the search's.
    #[test]
    fn answers_stay_the_search_s_when_the_dfa_pauses_and_resumes() {
        let re = Regex::new(r"^/api/([a-z]+)|in (\d+) ms").expect("regex");
        let texts = (0..3 * PAUSE as usize).map(|i| match (i / 4096) % 3 {
            0 => format!("took in {i} ms"),
            1 => format!("/api/orders/{i}"),
            _ if i % 2 == 0 => format!("/api/users/{i}"),
            _ => format!("done in {} ms", i % 5000),
        });
        for group in 0..3 {
            let mut memo = Memo::default();
            let mut paused = false;
            for t in texts.clone() {
                assert_eq!(
                    memo.find(&re, group, &t),
                    plain(&re, group, &t),
                    "{group} {t}"
                );
                paused |= memo.paused > 0;
            }
            assert!(paused, "the DFA paused at least once");
        }
    }

    proptest! {
        #[test]
        fn memo_agrees_with_captures(texts in prop::collection::vec("[/a-c0-9é]{0,12}", 1..200)) {
            for p in [r"/([a-c]+)(\d)?", r"^/([a-c]+)(é|\d\d)?", r"(a|abc)(b*)$"] {
                let re = Regex::new(p).expect("regex");
                for group in 0..3 {
                    let mut memo = Memo::default();
                    for t in texts.iter().chain(&texts) {
                        prop_assert_eq!(memo.find(&re, group, t), plain(&re, group, t));
                    }
                }
            }
        }
    }
}
