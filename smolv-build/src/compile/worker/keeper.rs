//! The keeper: the one thread that starts a pool's worker processes, and,
//! in a kept pool, starts a new idle worker in the background when one
//! dies.
//!
//! Why one thread: on Linux a worker asks to die with its parent
//! (`PR_SET_PDEATHSIG`), and the kernel's "parent" is the *thread* that
//! started it. A worker started by a short-lived thread (a build's job
//! thread, a caller of [`CompilerPool`](crate::recipe::CompilerPool) on a
//! thread of its own) would be killed when that thread ends, however long
//! the pool means to keep it. The keeper lives as long as the pool, so its
//! workers do too, and still die with the program.

use std::process::Child;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, PoisonError};
use std::thread::JoinHandle;

use super::pool::{Shared, Worker};

/// What the keeper is asked.
pub(super) enum Order {
    /// Start a worker process and send it back.
    Start(Sender<std::io::Result<Child>>),
    /// A worker ended: start idle ones until the pool has as many as it
    /// keeps warm.
    TopUp,
    /// The pool is being dropped.
    Stop,
}

/// The keeper thread and how to reach it.
pub(super) struct Keeper {
    orders: Sender<Order>,
    thread: Option<JoinHandle<()>>,
}

impl Keeper {
    /// Starts the keeper of `shared`'s workers; `None` if no thread can
    /// be started (then workers start on the caller's thread, as before).
    pub(super) fn start(shared: &Arc<Shared>) -> Option<Self> {
        let (orders, receiver) = channel();
        let (shared, for_drains) = (Arc::clone(shared), orders.clone());
        let thread = std::thread::Builder::new()
            .name("smolv-build workers".into())
            .spawn(move || keep(&shared, &receiver, &for_drains))
            .ok()?;
        Some(Self { orders, thread: Some(thread) })
    }

    /// A new worker process, started on the keeper's thread.
    pub(super) fn spawn(&self) -> std::io::Result<Child> {
        let (reply, answer) = channel();
        self.orders.send(Order::Start(reply)).map_err(|_| std::io::Error::other("the worker keeper has stopped"))?;
        answer.recv().map_err(|_| std::io::Error::other("the worker keeper has stopped"))?
    }

    /// What a worker's stderr drain tells the keeper when its worker ends.
    pub(super) fn orders(&self) -> Sender<Order> {
        self.orders.clone()
    }

    /// Asks for idle workers up to the pool's warm count, in the background.
    pub(super) fn top_up(&self) {
        let _ = self.orders.send(Order::TopUp);
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        let _ = self.orders.send(Order::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The keeper's life: starts what it is asked to, until the pool stops it.
fn keep(shared: &Shared, orders: &Receiver<Order>, for_drains: &Sender<Order>) {
    while let Ok(order) = orders.recv() {
        match order {
            Order::Start(reply) => {
                let _ = reply.send(shared.command().spawn());
            }
            Order::TopUp => top_up(shared, for_drains),
            Order::Stop => return,
        }
    }
}

/// Drops the idle workers that ended, and starts new ones until
/// `shared.warm` are idle. A new one is not waited for: the request that
/// takes it waits for its greeting, by then mostly done.
fn top_up(shared: &Shared, for_drains: &Sender<Order>) {
    let live = {
        let mut idle = shared.idle.lock().unwrap_or_else(PoisonError::into_inner);
        idle.retain(Worker::is_alive);
        idle.len()
    };
    for _ in live..shared.warm {
        let Ok(child) = shared.command().spawn() else { return };
        let Ok(worker) = Worker::watch(child, Some(for_drains.clone())) else { return };
        shared.idle.lock().unwrap_or_else(PoisonError::into_inner).push(worker);
    }
}
