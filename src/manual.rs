//! `ndq completions SHELL` and `ndq man`: written from the clap definitions of [`crate::cli`],
//! so they list exactly the flags `--help` does.

use std::io::Write;

use clap::CommandFactory as _;

use crate::cli::Args;
use crate::exit::Failure;

/// The completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<(), Failure> {
    let mut cmd = visible(&Args::command());
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "ndq", &mut buf);
    out.write_all(&buf).map_err(anyhow::Error::from)?;
    Ok(())
}

/// `cmd` without its hidden flags (for tests and measurements) and hidden commands:
/// clap_complete would offer them, as it offers every argument.
fn visible(cmd: &clap::Command) -> clap::Command {
    let mut out = clap::Command::new(cmd.get_name().to_owned())
        .args(cmd.get_arguments().filter(|a| !a.is_hide_set()).cloned())
        .subcommands(
            cmd.get_subcommands()
                .filter(|s| !s.is_hide_set())
                .map(visible),
        )
        .args_conflicts_with_subcommands(cmd.is_args_conflicts_with_subcommands_set())
        .subcommand_negates_reqs(cmd.is_subcommand_negates_reqs_set());
    if let Some(about) = cmd.get_about() {
        out = out.about(about.clone());
    }
    if let Some(version) = cmd.get_version() {
        out = out.version(version.to_owned());
    }
    out
}

/// The manual page, in roff: one page, `ndq(1)`, with each command's synopsis, description
/// and options in a COMMANDS section (there are no separate `ndq-keys(1)` pages to point to).
pub fn man(out: &mut dyn Write) -> Result<(), Failure> {
    let page = render_man().map_err(anyhow::Error::from)?;
    out.write_all(&page).map_err(anyhow::Error::from)?;
    Ok(())
}

fn render_man() -> std::io::Result<Vec<u8>> {
    let mut cmd = Args::command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    page.extend_from_slice(b".SH COMMANDS\n");
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        let sub_man = clap_mangen::Man::new(sub.clone());
        let mut part = Vec::new();
        sub_man.render_synopsis_section(&mut part)?;
        sub_man.render_description_section(&mut part)?;
        sub_man.render_options_section(&mut part)?;
        // The command's own sections become one subsection of COMMANDS.
        let name = sub.get_bin_name().unwrap_or(sub.get_name());
        page.extend_from_slice(format!(".SS \"{name}\"\n").as_bytes());
        let sub_man = clap_mangen::Man::new(sub.clone());
        let mut part = Vec::new();
        sub_man.render_synopsis_section(&mut part)?;
        sub_man.render_description_section(&mut part)?;
        sub_man.render_options_section(&mut part)?;
        let mut headings = 0;
        for line in part.split_inclusive(|&b| b == b'\n') {
            if line.starts_with(b".SH ") {
                if headings > 0 {
                    page.extend_from_slice(b".PP\n");
                }
                headings += 1;
            } else {
                page.extend_from_slice(line);
            }
        }
    }
    man.render_extra_section(&mut page)?;
    man.render_version_section(&mut page)?;
    Ok(without_repeated_preambles(&page))
}

/// Each of clap_mangen's `render_*` calls starts with the two lines that define `\*(Aq`; the
/// first is enough.
fn without_repeated_preambles(page: &[u8]) -> Vec<u8> {
    let mut seen = false;
    let mut out = Vec::with_capacity(page.len());
    let mut lines = page.split_inclusive(|&b| b == b'\n').peekable();
    while let Some(line) = lines.next() {
        if line.starts_with(b".ie \\n(.g .ds Aq") {
            if seen {
                lines.next_if(|l| l.starts_with(b".el .ds Aq"));
                continue;
            }
            seen = true;
        }
        out.extend_from_slice(line);
    }
    out
}
