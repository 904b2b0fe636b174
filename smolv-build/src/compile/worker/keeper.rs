//! The keeper: the one thread, living as long as the pool, that starts its workers (`PR_SET_PDEATHSIG`
//! fires when the starting *thread* ends), and tops a kept pool's idle workers up.

use std::process::Child;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, PoisonError};
use std::thread::JoinHandle;

use super::pool::{Shared, Worker};

pub(super) enum Order {
    Start(Sender<std::io::Result<Child>>),
    /// A worker ended: start idle ones up to the pool's warm count.
    TopUp,
    Stop,
}

pub(super) struct Keeper {
    pub(super) orders: Sender<Order>,
    thread: Option<JoinHandle<()>>,
}

impl Keeper {
    /// Starts the keeper of `shared`'s workers, if a thread can be started; it tops the pool up first.
    pub(super) fn start(shared: &Arc<Shared>) -> Option<Self> {
        let (orders, receiver) = channel();
        let (shared, for_drains) = (Arc::clone(shared), orders.clone());
        let thread = std::thread::Builder::new()
            .name("smolv-build workers".into())
            .spawn(move || keep(&shared, &receiver, &for_drains))
            .ok()?;
        Some(Self { orders, thread: Some(thread) })
    }

    pub(super) fn spawn(&self) -> std::io::Result<Child> {
        let (reply, answer) = channel();
        self.orders.send(Order::Start(reply)).map_err(|_| std::io::Error::other("the worker keeper has stopped"))?;
        answer.recv().map_err(|_| std::io::Error::other("the worker keeper has stopped"))?
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

fn keep(shared: &Shared, orders: &Receiver<Order>, for_drains: &Sender<Order>) {
    top_up(shared, for_drains);
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

/// Drops the idle workers that ended, and starts new ones up to `shared.warm`.
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
