//! wgpu's error scopes read without an executor.

use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// The result of a future native wgpu resolves at once; `None` if pending, as on the web.
pub(super) fn ready<T>(future: impl Future<Output = Option<T>>) -> Option<T> {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => None,
    }
}
