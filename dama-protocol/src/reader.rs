//! Reading lines with a bounded buffer, on a thread of their own.

use std::io::{self, BufRead, BufReader, Read};
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;

/// The longest line kept, in bytes; the rest of a longer line is read and dropped.
pub const MAX_LINE: usize = 64 * 1024;

/// What one read gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A line, without its line end (invalid UTF-8 replaced).
    Line(String),
    /// A line longer than the limit, of this many bytes; its content was dropped.
    TooLong(usize),
    /// The end of the input (or a read error, which ends it as well).
    Eof,
}

/// Reads one line from `r`, keeping at most `limit` bytes in memory.
///
/// # Errors
/// The reader's error (interruptions are retried).
pub fn read_capped<R: BufRead>(r: &mut R, limit: usize, buf: &mut Vec<u8>) -> io::Result<Input> {
    buf.clear();
    let mut total = 0usize;
    loop {
        let available = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(if total == 0 {
                Input::Eof
            } else {
                finish(buf, total, limit)
            });
        }
        let (chunk, used, end) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if total + chunk.len() <= limit {
            buf.extend_from_slice(chunk);
        }
        total += chunk.len();
        r.consume(used);
        if end {
            return Ok(finish(buf, total, limit));
        }
    }
}

fn finish(buf: &[u8], total: usize, limit: usize) -> Input {
    if total > limit {
        return Input::TooLong(total);
    }
    let text = String::from_utf8_lossy(buf);
    Input::Line(text.trim_end_matches('\r').to_string())
}

/// Starts a thread that reads `input` line by line and sends each [`Input`], mapped by
/// `wrap`, to `tx`, ending after [`Input::Eof`] or when the receiver is gone.
pub fn spawn<R, T>(
    input: R,
    limit: usize,
    tx: Sender<T>,
    wrap: fn(Input) -> T,
) -> io::Result<JoinHandle<()>>
where
    R: Read + Send + 'static,
    T: Send + 'static,
{
    std::thread::Builder::new()
        .name("hub-reader".into())
        .spawn(move || {
            let mut reader = BufReader::with_capacity(16 * 1024, input);
            let mut buf = Vec::new();
            loop {
                let got = read_capped(&mut reader, limit, &mut buf).unwrap_or_else(|e| {
                    tracing::debug!("input closed by a read error: {e}");
                    Input::Eof
                });
                let eof = got == Input::Eof;
                if tx.send(wrap(got)).is_err() || eof {
                    break;
                }
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(data: &[u8], limit: usize) -> Vec<Input> {
        let mut r = io::BufReader::with_capacity(7, data);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let got = read_capped(&mut r, limit, &mut buf).unwrap();
            out.push(got.clone());
            if got == Input::Eof {
                return out;
            }
        }
    }

    #[test]
    fn lines_crlf_and_last_line_without_newline() {
        assert_eq!(
            read_all(b"ping\r\nhub\nlast", 100),
            [
                Input::Line("ping".into()),
                Input::Line("hub".into()),
                Input::Line("last".into()),
                Input::Eof
            ]
        );
    }

    #[test]
    fn long_lines_are_dropped_and_reading_goes_on() {
        let mut data = vec![b'a'; 1000];
        data.extend_from_slice(b"\nping\n");
        data.extend_from_slice(&[b'b'; 50]);
        assert_eq!(
            read_all(&data, 20),
            [
                Input::TooLong(1000),
                Input::Line("ping".into()),
                Input::TooLong(50),
                Input::Eof
            ]
        );
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(
            read_all(b"p\xffng\n", 100)[0],
            Input::Line("p\u{fffd}ng".into())
        );
    }
}
