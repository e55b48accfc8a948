//! Golden outputs: `testdata/golden/<name>.args` holds one argument per line (`{sample}`
//! stands for the committed sample), `<name>.in` (optional) is standard input, `<name>.env`
//! (optional) holds `NAME=value` lines set in the environment (`COLUMNS=120` for a chart),
//! and `<name>.out` the exact expected stdout; every run must succeed with an empty stderr.
//!
//! To regenerate after a deliberate change: `NDQ_BLESS=1 cargo test golden`, then review the
//! diff of `testdata/golden/` by eye.

use std::path::Path;

use crate::util::{ndq, root, sample};

#[test]
fn golden_outputs() {
    let dir = root().join("testdata/golden");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("testdata/golden")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".args").map(String::from)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 5,
        "one golden file per output format at least"
    );
    let bless = std::env::var_os("NDQ_BLESS").is_some();
    let mut failed = Vec::new();
    for name in &names {
        if let Err(e) = check(&dir, name, bless) {
            failed.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failed.is_empty(),
        "golden files differ:\n{}",
        failed.join("\n")
    );
}

fn check(dir: &Path, name: &str, bless: bool) -> Result<(), String> {
    let args =
        std::fs::read_to_string(dir.join(format!("{name}.args"))).map_err(|e| e.to_string())?;
    let sample = sample();
    let sample = sample.to_str().expect("utf-8 path");
    let args: Vec<String> = args
        .lines()
        .map(|a| a.replace("{sample}", sample))
        .collect();
    let mut cmd = ndq(&args);
    if let Ok(stdin) = std::fs::read(dir.join(format!("{name}.in"))) {
        cmd = cmd.stdin(stdin);
    }
    if let Ok(env) = std::fs::read_to_string(dir.join(format!("{name}.env"))) {
        for line in env.lines().filter(|l| !l.trim().is_empty()) {
            let (k, v) = line
                .split_once('=')
                .ok_or_else(|| format!("{name}.env: not NAME=value: {line:?}"))?;
            cmd = cmd.env(k, v);
        }
    }
    let run = cmd.run();
    if run.code() != Some(0) || !run.stderr().is_empty() {
        return Err(format!("did not succeed quietly{run}"));
    }
    let out_path = dir.join(format!("{name}.out"));
    if bless {
        std::fs::write(&out_path, &run.output.stdout).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let want = std::fs::read(&out_path).map_err(|e| format!("{}: {e}", out_path.display()))?;
    if run.output.stdout != want {
        return Err(format!(
            "stdout differs from {}; wanted\n```\n{}```{run}",
            out_path.display(),
            String::from_utf8_lossy(&want)
        ));
    }
    Ok(())
}
