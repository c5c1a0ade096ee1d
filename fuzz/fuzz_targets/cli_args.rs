//! The `dama` command line: any arguments, UTF-8 or not, are parsed and checked
//! as `dama` parses and checks them (`dama_cli::check_args`: clap with dama's value parsers,
//! the `--log-level` filter, match players, `--sprt`) without a panic, and a refusal says
//! something.
//!
//! Bytes: the arguments after `dama`, separated by NUL bytes (an argument cannot hold one).
#![no_main]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut args = vec![OsString::from("dama")];
    args.extend(
        data.split(|&b| b == 0)
            .map(|a| OsString::from_vec(a.to_vec())),
    );
    if let Err(err) = dama_cli::check_args(args) {
        assert!(!err.to_string().trim().is_empty());
    }
});
