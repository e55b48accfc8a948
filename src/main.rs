//! ndq: fast queries over line-delimited JSON. `main` only dispatches.
fn main() {
    println!("ndq: not yet");
}
