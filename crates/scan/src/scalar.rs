//! The portable feeder: inside strings, finds the next `"`, `\` or control character one byte
//! at a time through a 256-entry table. No unsafe code.

use crate::Malformed;
use crate::state::Machine;

/// Bytes the machine must see inside strings: `"`, `\` and control characters.
static INSIDE: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t
};

/// Scan the machine's line to the end.
pub(crate) fn scan(m: &mut Machine<'_>) -> Result<(), Malformed> {
    let bytes = m.bytes;
    let find = |from: usize| {
        let rest = bytes.get(from..).unwrap_or_default();
        match rest.iter().position(|&b| INSIDE[usize::from(b)]) {
            Some(i) => from + i,
            None => bytes.len(),
        }
    };
    // No shapes: the scalar scanner is the plain path the AVX2 one is tested against.
    m.run(find, |_, _, _, _| None)
}
