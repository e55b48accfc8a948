//! `ndq completions SHELL` and `ndq man`: written from the clap definitions of [`crate::cli`],
//! so they list exactly the flags `--help` does.

use std::io::Write;

use clap::CommandFactory as _;

use crate::cli::Args;
use crate::exit::Failure;

/// The completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<(), Failure> {
    let mut cmd = Args::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "ndq", &mut buf);
    out.write_all(&buf).map_err(anyhow::Error::from)?;
    Ok(())
}

/// The manual page, in roff: `ndq(1)`, its commands listed in a SUBCOMMANDS section.
pub fn man(out: &mut dyn Write) -> Result<(), Failure> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Args::command())
        .render(&mut buf)
        .map_err(anyhow::Error::from)?;
    out.write_all(&buf).map_err(anyhow::Error::from)?;
    Ok(())
}
