//! The exit status, and why a run failed: one type of each for `ndq` and `ndq bench`, so both
//! print their errors and choose their status the same way.
//!
//! The statuses (DEVELOPERS.md): 0 ok (also when stdout is a pipe closed early, as by
//! `| head`), 1 runtime error, 2 usage or query error. Nothing else in the program calls
//! `process::exit` or builds a status, but for the SIGBUS handler of `driver::map_window`
//! (a file truncated under its map: status 1, from inside the handler).

use std::io::{self, Write as _};

/// The exit status: 0 ok, 1 runtime error, 2 usage or query error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitCode {
    /// Success.
    Ok = 0,
    /// An input missing or unreadable, a bad line under `--strict`, a write error.
    Runtime = 1,
    /// Bad arguments, a bad query (or a bad cases file for `ndq bench`).
    Usage = 2,
}

impl std::process::Termination for ExitCode {
    fn report(self) -> std::process::ExitCode {
        std::process::ExitCode::from(self as u8)
    }
}

impl ExitCode {
    /// The status for arguments clap rejected, after printing its message: `--help` and
    /// `--version` go to stdout with status 0, mistakes to stderr with 2.
    pub fn of_clap(e: &clap::Error) -> ExitCode {
        if !e.use_stderr() {
            // `--help`, `--version`: clap's own text, on stdout.
            let _ = e.print();
            return ExitCode::Ok;
        }
        // An error in the arguments, said as every other message of ndq is (`ndq: error:`),
        // so that a script's log shows which program it came from.
        let text = e.render().to_string();
        let text = match text.strip_prefix("error: ") {
            Some(rest) => format!("ndq: error: {rest}"),
            None => text,
        };
        // As clap's own printing: a stderr that cannot be written is no reason to panic.
        let _ = io::stderr().write_all(text.as_bytes());
        ExitCode::Usage
    }

    /// The status of a run's outcome, after printing the error when there is one.
    pub fn of(result: Result<(), Failure>) -> ExitCode {
        match result {
            Ok(()) => ExitCode::Ok,
            Err(failure) => failure.report(),
        }
    }
}

/// Why a run failed.
#[derive(Debug)]
pub enum Failure {
    /// Usage or query errors (exit 2): each message is printed after `ndq: error: `.
    Usage(Vec<String>),
    /// Anything else (exit 1).
    Runtime(anyhow::Error),
}

impl Failure {
    /// One usage or query error.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::Usage(vec![message.into()])
    }

    /// Print the failure on stderr and give its exit status. Writing into a closed pipe is
    /// not an error: it exits 0 quietly.
    pub fn report(self) -> ExitCode {
        match self {
            Failure::Usage(messages) => {
                for m in messages {
                    crate::messages::message(format_args!("error: {m}"));
                }
                ExitCode::Usage
            }
            Failure::Runtime(e) if is_broken_pipe(&e) => ExitCode::Ok,
            Failure::Runtime(e) => {
                let mut text = without_os_codes(&format!("{e:#}"));
                if too_many_files(&e) {
                    text.push_str(" (the limit on open files: raise it with ulimit -n)");
                }
                crate::error!("{}", crate::messages::sanitize(&text));
                ExitCode::Runtime
            }
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        match e.downcast::<LateUsage>() {
            Ok(LateUsage(message)) => Failure::usage(message),
            Err(e) => Failure::Runtime(e),
        }
    }
}

/// A usage error that only the rows can show (`-o chart` of rows with no number to draw),
/// raised where only an [`anyhow::Error`] can go: it is still a usage error (exit 2).
#[derive(Debug)]
pub struct LateUsage(pub String);

impl std::fmt::Display for LateUsage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LateUsage {}

/// `text` without the ` (os error N)` that the standard library adds to a system error's
/// description (`No such file or directory (os error 2)`): a number for programmers.
pub fn without_os_codes(text: &str) -> String {
    const MARK: &str = " (os error ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&rest[..at]);
        if digits > 0 && after.as_bytes().get(digits) == Some(&b')') {
            rest = &after[digits + 1..];
        } else {
            out.push_str(MARK);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Whether the error is the process's limit on open files (EMFILE).
fn too_many_files(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.raw_os_error() == Some(rustix::io::Errno::MFILE.raw_os_error()))
    })
}

/// Whether the error comes from writing into a closed pipe.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_error_numbers_are_left_out() {
        assert_eq!(
            without_os_codes("a.log: No such file or directory (os error 2)"),
            "a.log: No such file or directory"
        );
        assert_eq!(
            without_os_codes("x: Permission denied (os error 13): y (os error 5)"),
            "x: Permission denied: y"
        );
        assert_eq!(
            without_os_codes("(os error x) (os error "),
            "(os error x) (os error "
        );
    }

    #[test]
    fn statuses_are_zero_one_two() {
        assert_eq!(ExitCode::Ok as u8, 0);
        assert_eq!(ExitCode::Runtime as u8, 1);
        assert_eq!(ExitCode::Usage as u8, 2);
    }

    #[test]
    fn a_chart_refused_after_reading_is_still_a_usage_error() {
        let e = anyhow::Error::new(LateUsage("nothing to measure".into())).context("drawing");
        match Failure::from(e) {
            Failure::Usage(messages) => assert_eq!(messages, ["nothing to measure"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn failures_give_their_status() {
        assert_eq!(ExitCode::of(Ok(())), ExitCode::Ok);
        assert_eq!(Failure::usage("bad").report(), ExitCode::Usage);
        let e = anyhow::anyhow!("no such file");
        assert_eq!(Failure::from(e).report(), ExitCode::Runtime);
    }

    #[test]
    fn a_closed_pipe_is_success() {
        let pipe = io::Error::new(io::ErrorKind::BrokenPipe, "closed");
        let e = anyhow::Error::new(pipe).context("writing the results");
        assert!(is_broken_pipe(&e));
        assert_eq!(Failure::from(e).report(), ExitCode::Ok);
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }
}
