//! The `Fixture` helper for the CLI's end-to-end tests: a temporary directory to put inputs
//! in, a way to run `ndq` with arguments and standard input, and assertions that print the
//! whole command, stdout and stderr when they fail; and the polling waits of the tests that
//! watch a running `ndq` (`--follow`, a terminal): no sleep is an assertion, no timing is
//! checked, a wait only gives up after a generous [`PATIENCE`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Output};
use std::time::{Duration, Instant};

/// The repository root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A cache directory for the whole test run (the zone maps of `ndq` runs go there, never to
/// the user's cache): set as `NDQ_CACHE_DIR` for every run unless a test sets its own.
pub fn cache_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("temp dir"))
        .path()
}

/// The committed sample.
pub fn sample() -> PathBuf {
    root().join("testdata/sample.ndjson")
}

/// A scratch directory for one test's inputs.
pub struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    /// A new, empty directory.
    pub fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The path of `name` inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Write `data` to `name` (creating parent directories) and return its path.
    pub fn write(&self, name: &str, data: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, data).expect("write fixture");
        path
    }
}

/// `ndq` with arguments (and optionally standard input), ready to run.
pub struct Ndq {
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
    env: Vec<(String, String)>,
}

/// Start a command line: `ndq(&["select *", "file"])`.
pub fn ndq<S: AsRef<str>>(args: &[S]) -> Ndq {
    Ndq {
        args: args.iter().map(|a| a.as_ref().to_string()).collect(),
        stdin: None,
        env: Vec::new(),
    }
}

impl Ndq {
    /// Add an argument.
    pub fn arg(mut self, a: impl AsRef<str>) -> Ndq {
        self.args.push(a.as_ref().to_string());
        self
    }

    /// Add a path argument.
    pub fn path(self, p: &Path) -> Ndq {
        let p = p.to_str().expect("utf-8 path").to_string();
        self.arg(p)
    }

    /// Feed `data` on standard input.
    pub fn stdin(mut self, data: impl Into<Vec<u8>>) -> Ndq {
        self.stdin = Some(data.into());
        self
    }

    /// Set an environment variable.
    pub fn env(mut self, k: &str, v: &str) -> Ndq {
        self.env.push((k.to_string(), v.to_string()));
        self
    }

    /// Run it to the end.
    pub fn run(self) -> Run {
        let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_ndq"));
        cmd.args(&self.args);
        // Tests must not depend on the caller's environment (NDQ_SCANNER is set on purpose by
        // `.ci/run` for the whole suite, so it is passed through).
        cmd.env_remove("NO_COLOR");
        // The size of `-o chart`.
        cmd.env_remove("COLUMNS").env_remove("LINES");
        cmd.env("NDQ_CACHE_DIR", cache_dir());
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd.write_stdin(self.stdin.clone().unwrap_or_default());
        let output = cmd.output().expect("ndq runs");
        Run {
            line: format!("ndq {}", shell_words(&self.args)),
            output,
        }
    }

    /// Run it to the end and require success with an empty stderr ([`Run::ok`]).
    #[track_caller]
    pub fn run_ok(self) -> Run {
        let run = self.run();
        run.ok();
        run
    }

    /// [`Ndq::run_ok`], and require `want`'s stdout: the same answer reached another way
    /// (threads, scanner, engine, input).
    #[track_caller]
    pub fn run_same_as(self, want: &Run) -> Run {
        let run = self.run_ok();
        run.stdout_is(want.stdout());
        run
    }
}

fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=@".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A finished run.
pub struct Run {
    /// The command line, for failure messages.
    pub line: String,
    /// What it did.
    pub output: Output,
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "\n--- command\n```\n{}\n```\n--- status {:?}\n--- stdout\n```\n{}```\n--- stderr\n```\n{}```",
            self.line,
            self.output.status.code(),
            String::from_utf8_lossy(&self.output.stdout),
            String::from_utf8_lossy(&self.output.stderr)
        )
    }
}

impl Run {
    /// stdout as text.
    pub fn stdout(&self) -> &str {
        std::str::from_utf8(&self.output.stdout).expect("utf-8 stdout")
    }

    /// stderr as text.
    pub fn stderr(&self) -> &str {
        std::str::from_utf8(&self.output.stderr).expect("utf-8 stderr")
    }

    /// The exit status.
    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    /// Require exit status `code`.
    #[track_caller]
    pub fn status(&self, code: i32) -> &Run {
        assert_eq!(self.code(), Some(code), "wrong exit status{self}");
        self
    }

    /// Require success and an empty stderr; return stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        self.status(0);
        assert_eq!(self.stderr(), "", "unexpected stderr{self}");
        self.stdout()
    }

    /// Require stdout to be exactly `want`.
    #[track_caller]
    pub fn stdout_is(&self, want: &str) -> &Run {
        assert!(
            self.stdout() == want,
            "stdout differs; wanted\n```\n{want}```{self}"
        );
        self
    }

    /// Require stderr to be exactly `want`.
    #[track_caller]
    pub fn stderr_is(&self, want: &str) -> &Run {
        assert!(
            self.stderr() == want,
            "stderr differs; wanted\n```\n{want}```{self}"
        );
        self
    }

    /// Require stderr to contain `part`.
    #[track_caller]
    pub fn stderr_has(&self, part: &str) -> &Run {
        assert!(self.stderr().contains(part), "stderr lacks {part:?}{self}");
        self
    }

    /// The numbers of the `--stats` line: (lines, hits, malformed, bytes).
    #[track_caller]
    pub fn stats(&self) -> (u64, u64, u64, u64) {
        let line = self
            .stderr()
            .lines()
            .find(|l| l.starts_with("ndq: stats: "))
            .unwrap_or_else(|| panic!("no stats line{self}"));
        let n: Vec<u64> = line
            .split([' ', ','])
            .filter_map(|w| w.parse().ok())
            .collect();
        (n[0], n[1], n[2], n[3])
    }
}

/// The sample's events, parsed independently of ndq.
pub fn sample_events() -> Vec<serde_json::Map<String, serde_json::Value>> {
    let text = std::fs::read_to_string(sample()).expect("sample");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(
            |l| match serde_json::from_str(l).expect("sample lines are JSON") {
                serde_json::Value::Object(o) => o,
                other => panic!("not an object: {other}"),
            },
        )
        .collect()
}

/// How long a wait may take before the test fails (a loaded machine is slow, not wrong).
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Call `read` every 20 ms until `done` holds of what it returns: `Ok` with that value, or
/// `Err` with the last value read once [`PATIENCE`] is out.
pub fn poll<T>(mut read: impl FnMut() -> T, done: impl Fn(&T) -> bool) -> Result<T, T> {
    let start = Instant::now();
    loop {
        let value = read();
        if done(&value) {
            return Ok(value);
        }
        if start.elapsed() >= PATIENCE {
            return Err(value);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// [`poll`], failing the test with `what` and the last value read when it gives up.
#[track_caller]
pub fn wait_for<T: fmt::Debug>(
    what: &str,
    read: impl FnMut() -> T,
    done: impl Fn(&T) -> bool,
) -> T {
    poll(read, done).unwrap_or_else(|last| panic!("waited for {what}; last saw {last:?}"))
}

/// Wait for `child` to exit and return its status; when it does not, kill it and fail the
/// test with `what` and `detail()` (what it wrote, say).
#[track_caller]
pub fn wait_exit(child: &mut Child, what: &str, detail: impl Fn() -> String) -> ExitStatus {
    match poll(|| child.try_wait().expect("try_wait"), Option::is_some) {
        Ok(status) => status.expect("polled until it exited"),
        Err(_) => {
            let _ = child.kill();
            panic!("waited for {what}{}", detail());
        }
    }
}

/// Run the shell command `line` in a pseudo-terminal (util-linux's `script`) with `TERM=xterm`,
/// `NO_COLOR` unset and `env` set: what the terminal got (`\r\n` as `\n`), after checking
/// that it exited 0. `None` where `script` is missing.
pub fn in_a_terminal(line: &str, env: &[(&str, &str)]) -> Option<String> {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no script(1) to run ndq in a pseudo-terminal");
        return None;
    }
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", line, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("script runs");
    let drawn = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert_eq!(out.status.code(), Some(0), "{drawn}");
    Some(drawn)
}
