//! The portable feeder: finds the next interesting byte one byte at a time, through a 256-entry
//! table per mode (see `state.rs` for which bytes are interesting). No unsafe code.

use crate::Malformed;
use crate::state::Machine;

/// Bytes the machine must see outside strings: `{ } [ ] : , "`.
static OUTSIDE: [bool; 256] = table(b"{}[]:,\"", false);
/// Bytes the machine must see inside strings: `"`, `\` and control characters.
static INSIDE: [bool; 256] = table(b"\"\\", true);

const fn table(bytes: &[u8], controls: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    if controls {
        let mut c = 0;
        while c < 0x20 {
            t[c] = true;
            c += 1;
        }
    }
    t
}

/// Scan the machine's line to the end.
pub(crate) fn scan(m: &mut Machine<'_>) -> Result<(), Malformed> {
    let bytes = m.bytes;
    loop {
        let from = m.cursor;
        let rest = bytes.get(from..).unwrap_or_default();
        let table = if m.in_string { &INSIDE } else { &OUTSIDE };
        match rest.iter().position(|&b| table[usize::from(b)]) {
            Some(i) => m.step(from + i)?,
            None => return m.finish(),
        }
    }
}
