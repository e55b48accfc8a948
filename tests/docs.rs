//! The documents' examples are tests: every fenced ```console block of README.md and
//! docs/language.md is run against the committed sample and must print what the document
//! shows.
//!
//! The format of a block:
//!
//! - A line starting with `$ ` is a command. It runs with `sh -c`, in the repository root,
//!   with the directory of the cargo-built `ndq` first on `PATH` (so `ndq` is this build),
//!   standard input empty and `NO_COLOR` unset.
//! - The lines after it, up to the next `$ ` line or the end of the block, are its expected
//!   standard output, compared exactly (each line ends with a newline; no lines means no
//!   output).
//! - Standard error is not compared (a document that shows an error message writes the
//!   command with `2>&1`). The exit status must be 0, unless the first line after the command
//!   is `? N`, which expects status `N` (and is not part of the output).
//!
//! Blocks fenced with anything else (```text, ```sh) are not run: an example of a construct
//! not built yet, or one whose output depends on the clock, is fenced ```text, and becomes a
//! test by changing its fence to ```console.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::root;

/// The documents whose examples are run.
const DOCUMENTS: &[&str] = &["README.md", "docs/language.md"];

/// One command of a ```console block and what it must do.
#[derive(Debug, PartialEq)]
struct Example {
    /// 1-based line of the `$ ` line in its document.
    line: usize,
    /// The command, without the `$ `.
    command: String,
    /// The expected standard output.
    stdout: String,
    /// The expected exit status.
    status: i32,
}

/// The examples of a document's ```console blocks, in order.
fn examples(text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut in_other = false;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start();
        if in_console || in_other {
            if fence.starts_with("```") && fence.trim_end() == "```" {
                in_console = false;
                in_other = false;
                continue;
            }
            if in_other {
                continue;
            }
            if let Some(command) = line.strip_prefix("$ ") {
                out.push(Example {
                    line: i + 1,
                    command: command.to_string(),
                    stdout: String::new(),
                    status: 0,
                });
                continue;
            }
            let Some(example) = out.last_mut() else {
                panic!("line {}: output before any `$ ` command", i + 1);
            };
            if let Some(code) = line.strip_prefix("? ")
                && example.stdout.is_empty()
                && example.status == 0
            {
                example.status = code
                    .trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("line {}: bad status marker {line:?}", i + 1));
                continue;
            }
            example.stdout.push_str(line);
            example.stdout.push('\n');
        } else if let Some(info) = fence.strip_prefix("```") {
            if info.trim() == "console" {
                in_console = true;
            } else {
                in_other = true;
            }
        }
    }
    assert!(!in_console && !in_other, "a fenced block is not closed");
    out
}

/// Run one example; `None` when it did what the document says, else the failure report.
fn check(document: &str, example: &Example, bin_dir: &Path) -> Option<String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let output = Command::new("sh")
        .arg("-c")
        .arg(&example.command)
        .current_dir(root())
        .env("PATH", std::env::join_paths(dirs).expect("PATH"))
        .env("NDQ_CACHE_DIR", crate::util::cache_dir())
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let status = output.status.code().unwrap_or(-1);
    if stdout == example.stdout && status == example.status {
        return None;
    }
    Some(format!(
        "{document}:{line}: $ {command}\n--- expected (status {want})\n{expected}--- actual \
         (status {status})\n{stdout}--- stderr\n{stderr}",
        line = example.line,
        command = example.command,
        want = example.status,
        expected = example.stdout,
        stderr = String::from_utf8_lossy(&output.stderr),
    ))
}

fn bin_dir() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_ndq"))
        .parent()
        .expect("the binary has a directory")
}

#[test]
fn documented_examples_print_what_the_documents_show() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for document in DOCUMENTS {
        let text = std::fs::read_to_string(root().join(document))
            .unwrap_or_else(|e| panic!("{document}: {e}"));
        for example in examples(&text) {
            ran += 1;
            failures.extend(check(document, &example, bin_dir()));
        }
    }
    assert!(
        ran >= 10,
        "only {ran} examples found: is the parser broken?"
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} documented examples differ:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn console_blocks_are_parsed_into_commands_output_and_status() {
    let doc = "intro\n\
               ```console\n\
               $ echo a\n\
               a\n\
               $ false\n\
               ? 1\n\
               ```\n\
               ```text\n\
               $ echo not run\n\
               ```\n\
               ```sh\n\
               $ echo not run either\n\
               ```\n";
    assert_eq!(
        examples(doc),
        [
            Example {
                line: 3,
                command: "echo a".into(),
                stdout: "a\n".into(),
                status: 0,
            },
            Example {
                line: 5,
                command: "false".into(),
                stdout: String::new(),
                status: 1,
            },
        ]
    );
}

#[test]
fn an_example_whose_output_or_status_differs_fails_with_a_report() {
    let doc = "```console\n\
               $ ndq -o raw 'select count(*)' testdata/sample.ndjson\n\
               295\n\
               $ ndq 'select nope(1)' testdata/sample.ndjson\n\
               $ ndq -o raw 'select count(*)' testdata/sample.ndjson\n\
               294\n\
               ```\n";
    let reports: Vec<String> = examples(doc)
        .iter()
        .filter_map(|e| check("doc.md", e, bin_dir()))
        .collect();
    assert_eq!(reports.len(), 2, "{reports:#?}");
    assert!(
        reports[0].starts_with("doc.md:2: $ ndq -o raw 'select count(*)'"),
        "{}",
        reports[0]
    );
    assert!(
        reports[0].contains("expected (status 0)\n295\n"),
        "{}",
        reports[0]
    );
    assert!(
        reports[0].contains("actual (status 0)\n294\n"),
        "{}",
        reports[0]
    );
    assert!(reports[1].contains("actual (status 2)"), "{}", reports[1]);
}

#[test]
fn help_names_the_language_reference_that_the_repository_holds() {
    let out = Command::new(env!("CARGO_BIN_EXE_ndq"))
        .arg("--help")
        .output()
        .expect("ndq runs");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("docs/language.md"), "{help}");
    assert!(!help.contains("QUERY.md"), "{help}");
    assert!(root().join("docs/language.md").is_file());
}
