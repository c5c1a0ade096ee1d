//! Running the `dama` binary from the integration tests.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `dama` with `args`, feeding `stdin` (or nothing), and waits for it.
pub fn dama(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dama"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the dama binary runs");
    let mut input = child.stdin.take().expect("piped stdin");
    input
        .write_all(stdin.unwrap_or("").as_bytes())
        .expect("stdin accepts the input");
    drop(input);
    child.wait_with_output().expect("dama finishes")
}
