//! The server in process on a loopback port, and a small HTTP/1.1 client, for the tests.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use dama_web::{Options, Server};
use serde_json::Value;

/// The header of a JSON body, as the page sends it.
pub const JSON: (&str, &str) = ("Content-Type", "application/json");

/// A server on its own runtime thread, stopped (gracefully) when dropped.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    pub fn start(opts: Options) -> Running {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let server = Server::bind(opts).await.expect("the server starts");
                addr_tx.send(server.local_addr()).unwrap();
                server
                    .run(async move {
                        let _ = stopped.await;
                    })
                    .await
                    .expect("the server stops cleanly");
            });
        });
        let addr = addr_rx
            .recv_timeout(Duration::from_secs(20))
            .expect("an address");
        Running {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `method path` with `headers` and `body`: the status, the head (lower case) and the body.
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        let mut stream = TcpStream::connect(self.addr).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
        let text = String::from_utf8(reply).expect("UTF-8");
        let (head, body) = text
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP answer: {text:?}"));
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap();
        Answer {
            status,
            head: head.to_ascii_lowercase(),
            body: body.to_string(),
        }
    }

    pub fn json(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Value,
    ) -> (u16, Value) {
        let a = if body.is_null() {
            self.send(method, path, headers, "")
        } else {
            // As the page sends it.
            let mut typed = vec![JSON];
            typed.extend_from_slice(headers);
            self.send(method, path, &typed, &body.to_string())
        };
        let v = if a.body.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&a.body).unwrap_or_else(|e| panic!("{e}: {:?}", a.body))
        };
        (a.status, v)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

pub fn opts() -> Options {
    Options {
        searchers: 1,
        // Hermetic: no table files of the user's (the in-memory tables only).
        egtb: None,
        ..Options::loopback()
    }
}
