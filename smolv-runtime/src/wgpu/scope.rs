//! wgpu's error scopes read without an executor.

use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// The result of a future that native wgpu resolves at once (popping an
/// error scope); `None` if it is still pending, as on the web.
pub(super) fn ready<T>(future: impl Future<Output = Option<T>>) -> Option<T> {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => None,
    }
}
