//! A small HTTP/1.1 server for tests of the remote cache (the command
//! line's too): `GET` and `PUT` of any path, kept in memory, each answer
//! after a set delay.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server holds and has seen.
#[derive(Default)]
pub(crate) struct State {
    /// Bodies by path (`ac/<hex>`, `cas/<sha256>`), without the leading `/`.
    pub(crate) files: HashMap<String, Vec<u8>>,
    /// `GET /ac/…`, `PUT /cas/…`: every request, in order.
    pub(crate) requests: Vec<String>,
}

/// A server on 127.0.0.1, stopped when dropped.
pub(crate) struct TestServer {
    pub(crate) url: String,
    pub(crate) state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl TestServer {
    /// Answers every request after `delay`.
    pub(crate) fn start(delay: Duration) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}", listener.local_addr().expect("local address"));
        listener.set_nonblocking(true).expect("non-blocking listener");
        let (state, stop) = (Arc::new(Mutex::new(State::default())), Arc::new(AtomicBool::new(false)));
        let (accept_state, accept_stop) = (Arc::clone(&state), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !accept_stop.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (state, stop) = (Arc::clone(&accept_state), Arc::clone(&accept_stop));
                        std::thread::spawn(move || serve(stream, &state, &stop, delay));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        Self { url, state, stop }
    }

    /// Stores `body` under `path` (no leading `/`).
    pub(crate) fn insert(&self, path: &str, body: &[u8]) {
        self.state.lock().unwrap().files.insert(path.to_owned(), body.to_vec());
    }

    /// Every request so far.
    pub(crate) fn requests(&self) -> Vec<String> {
        self.state.lock().unwrap().requests.clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Answers the requests of one connection until it closes.
fn serve(stream: TcpStream, state: &Mutex<State>, stop: &AtomicBool, delay: Duration) {
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    while !stop.load(Ordering::Relaxed) {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).map_or(true, |n| n == 0) {
            return;
        }
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).map_or(true, |n| n == 0) {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let mut words = request_line.split_whitespace();
        let (method, path) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
        let path = path.trim_start_matches('/').to_owned();
        std::thread::sleep(delay);
        let answer = {
            let mut state = state.lock().unwrap();
            state.requests.push(format!("{method} /{path}"));
            match method {
                "GET" => state.files.get(&path).cloned(),
                "PUT" => {
                    state.files.insert(path, body);
                    Some(Vec::new())
                }
                _ => None,
            }
        };
        let head = match &answer {
            Some(found) => format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", found.len()),
            None => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_owned(),
        };
        let written = writer.write_all(head.as_bytes()).and_then(|()| writer.write_all(&answer.unwrap_or_default()));
        if written.is_err() {
            return;
        }
    }
}
