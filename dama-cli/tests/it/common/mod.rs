//! Running the `dama` binary from the integration tests.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `dama` with `args`, feeding `stdin` (or nothing), and waits for it.
pub fn dama(args: &[&str], stdin: Option<&str>) -> Output {
    dama_bytes(args, stdin.unwrap_or("").as_bytes())
}

/// Runs `dama` with `args`, feeding it `stdin` (any bytes), and waits for it.
pub fn dama_bytes(args: &[&str], stdin: &[u8]) -> Output {
    // The endgame tables' directory an empty temporary one unless a test sets its own: a
    // Hub engine the command starts builds the 5-piece tables there, never in the user's
    // cache.
    let egtb = std::env::temp_dir().join(format!("dama-cli-test-egtb-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&egtb);
    // A match's players get no endgame tables unless the test names them: building the
    // in-memory ones costs each `dama match` process 1.5 CPU-seconds in a debug build, most of
    // the time of the tests that play matches, and no such test is about the tables.
    let no_tables: &[&str] = if args.first() == Some(&"match") && !args.contains(&"--egtb1") {
        &["--egtb1", "none", "--egtb2", "none"]
    } else {
        &[]
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_dama"))
        .env("DAMA_EGTB", &egtb)
        .args(args)
        .args(no_tables)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the dama binary runs");
    let mut input = child.stdin.take().expect("piped stdin");
    let stdin = stdin.to_vec();
    // A thread feeds the input, so that a child writing while it reads never blocks; a child
    // that stops reading early (it may, on bad input) is not an error of the test.
    let feeder = std::thread::spawn(move || match input.write_all(&stdin) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(err),
        _ => Ok(()),
    });
    let output = child.wait_with_output().expect("dama finishes");
    feeder
        .join()
        .expect("the feeder runs")
        .expect("stdin accepts the input");
    output
}

/// Runs `dama` with `args` and `stdin`, its standard output a pipe whose reader is gone
/// before it starts (as in `dama perft | head -1`, once `head` has its line): every write to
/// stdout fails with a broken pipe.
pub fn dama_closed_stdout(args: &[&str], stdin: &str) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_dama"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the dama binary runs");
    let mut input = child.stdin.take().expect("piped stdin");
    let stdin = stdin.as_bytes().to_vec();
    let feeder = std::thread::spawn(move || {
        // A child that stops early closes its stdin: not an error of the test.
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("dama finishes");
    feeder.join().expect("the feeder runs");
    output
}
