//! The manager's background workers: threads that link optimized
//! pipelines, create compute pipelines, build rebuilds and run replays,
//! so that the caller's thread returns at once.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

use ash::vk;

use super::rebuild_job::{ComputeRebuild, GraphicsRebuild};
use super::slot::PipelineSlot;
use crate::vulkan::compute::{ComputeJob, ComputeSlot};
use crate::vulkan::library::link;
use crate::vulkan::lock;

/// Work for the background workers.
pub(super) enum Job {
    /// Link the libraries with link-time optimization and swap the result
    /// in, unless a later rebuild than `request` is in the slot by then.
    Link { slot: Arc<PipelineSlot>, libraries: [vk::Pipeline; 4], request: u64 },
    /// Create a compute pipeline and fill the slot.
    Compute { slot: Arc<ComputeSlot>, job: ComputeJob },
    /// Build a changed graphics pipeline again and swap it in.
    Rebuild(Box<GraphicsRebuild>),
    /// Create a changed compute pipeline again and swap it in.
    RebuildCompute(ComputeRebuild),
    /// Work of another part of the crate that builds through the manager
    /// (a replay's share of the workers).
    Task(Box<dyn FnOnce() + Send>),
}

impl Job {
    /// # Safety
    /// The handles in the job are valid on `device` and `cache` is null or
    /// a cache of it; a compute job's code is valid SPIR-V.
    pub(super) unsafe fn run(self, device: &ash::Device, cache: vk::PipelineCache) {
        match self {
            Self::Link { slot, libraries, request } => {
                // SAFETY: this function's contract; the libraries were made
                // with the slot's layout.
                match unsafe { link(device, cache, &libraries, slot.layout(), true) } {
                    Ok(pipeline) => {
                        if let Err(stale) = slot.offer_optimized(request, pipeline) {
                            // SAFETY: a later rebuild replaced the pipelines
                            // this link was for; it was never handed out.
                            unsafe { device.destroy_pipeline(stale, None) };
                        }
                    }
                    Err(error) => slot.optimized_failed(request, error.result()),
                }
            }
            Self::Compute { slot, job } => {
                // SAFETY: this function's contract.
                let created = unsafe { job.create(device, cache) };
                slot.finish(created.map_err(|e| e.result()));
            }
            // SAFETY: this function's contract.
            Self::Rebuild(job) => unsafe { job.run(device, cache) },
            // SAFETY: this function's contract.
            Self::RebuildCompute(job) => unsafe { job.run(device, cache) },
            Self::Task(task) => task(),
        }
    }
}

/// The jobs waiting for a worker: the urgent ones (what a caller may wait
/// for: compute pipelines, rebuilds, a replay's fast links) before the
/// link-time-optimized links, which only improve a pipeline that already
/// works; each queue in the order it was filled.
#[derive(Default)]
struct Queue {
    urgent: VecDeque<Job>,
    links: VecDeque<Job>,
    /// Set by [`Workers::stop`]: the workers return once both queues are empty.
    closed: bool,
    /// Workers running (a thread that panicked counts itself out).
    alive: usize,
}

impl Queue {
    fn pop(&mut self) -> Option<Job> {
        self.urgent.pop_front().or_else(|| self.links.pop_front())
    }
}

/// The queue and its signal, shared with the worker threads.
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    queued: Condvar,
}

/// Counts a worker out of [`Queue::alive`] when its thread ends, panics
/// included.
struct Alive(Arc<Shared>);

impl Drop for Alive {
    fn drop(&mut self) {
        lock(&self.0.queue).alive -= 1;
    }
}

/// Threads that run [`Job`]s: urgent ones first, then optimized links.
pub(super) struct Workers {
    device: ash::Device,
    cache: vk::PipelineCache,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts `count` workers (at least one, unless the system refuses a
    /// thread) running jobs on `device` through `cache`. They are named
    /// `smolv-pipelines`, for debuggers and profilers.
    ///
    /// # Safety
    /// `cache` is null or a cache of `device`; every job queued holds
    /// handles of `device` that stay valid until [`stop`](Self::stop)
    /// returns, and valid SPIR-V.
    pub(super) unsafe fn start(device: &ash::Device, cache: vk::PipelineCache, count: usize) -> Self {
        let shared = Arc::new(Shared::default());
        let threads = (0..count.max(1))
            .filter_map(|_| {
                lock(&shared.queue).alive += 1;
                let alive = Alive(Arc::clone(&shared));
                let device = device.clone();
                // A thread the system refuses is a worker less (its `Alive`
                // counts it out); with none, `submit` runs each job on the
                // caller's thread.
                std::thread::Builder::new()
                    .name("smolv-pipelines".to_owned())
                    .spawn(move || {
                        loop {
                            let job = {
                                let mut queue = lock(&alive.0.queue);
                                loop {
                                    if let Some(job) = queue.pop() {
                                        break job;
                                    }
                                    if queue.closed {
                                        return;
                                    }
                                    queue = alive.0.queued.wait(queue).unwrap_or_else(PoisonError::into_inner);
                                }
                            };
                            // SAFETY: the contract of `start`: the jobs' handles
                            // stay valid until `stop` has joined this thread.
                            unsafe { job.run(&device, cache) };
                        }
                    })
                    .ok()
            })
            .collect();
        Self { device: device.clone(), cache, shared, threads }
    }

    /// Queues `job`; where no worker is left to take it (they panicked, or
    /// were stopped), runs it on this thread instead, so that no slot
    /// waits forever.
    pub(super) fn submit(&self, job: Job) {
        let mut queue = lock(&self.shared.queue);
        if queue.alive == 0 || queue.closed {
            drop(queue);
            // SAFETY: the contract of `start` covers every job queued.
            unsafe { job.run(&self.device, self.cache) };
            return;
        }
        match job {
            Job::Link { .. } => queue.links.push_back(job),
            _ => queue.urgent.push_back(job),
        }
        drop(queue);
        self.shared.queued.notify_one();
    }

    /// How many workers run (0 once stopped, or when every thread was
    /// refused or panicked).
    pub(super) fn count(&self) -> usize {
        let queue = lock(&self.shared.queue);
        if queue.closed { 0 } else { queue.alive }
    }

    /// Lets the workers finish the jobs already queued, then joins them.
    pub(super) fn stop(&mut self) {
        lock(&self.shared.queue).closed = true;
        self.shared.queued.notify_all();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
        // Jobs no worker took (every one panicked) go now, before the
        // manager destroys what they hold; the queue stays closed.
        let mut queue = lock(&self.shared.queue);
        let left = (std::mem::take(&mut queue.urgent), std::mem::take(&mut queue.links));
        drop(queue);
        drop(left);
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urgent_jobs_come_before_optimized_links_each_in_order() {
        let order = Arc::new(Mutex::new(Vec::new()));
        let job = |n: u32| {
            let order = Arc::clone(&order);
            Job::Task(Box::new(move || lock(&order).push(n)))
        };
        let mut queue = Queue::default();
        queue.links.push_back(job(1));
        queue.urgent.push_back(job(2));
        queue.links.push_back(job(3));
        queue.urgent.push_back(job(4));
        while let Some(Job::Task(task)) = queue.pop() {
            task();
        }
        assert_eq!(*lock(&order), [2, 4, 1, 3]);
    }
}
