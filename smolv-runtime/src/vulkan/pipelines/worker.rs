//! The manager's background workers: threads that link optimized
//! pipelines, create compute pipelines, build rebuilds and run replays,
//! so that the caller's thread returns at once.

use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;

use ash::vk;

use super::rebuild_job::{ComputeRebuild, GraphicsRebuild};
use super::slot::PipelineSlot;
use crate::vulkan::compute::{ComputeJob, ComputeSlot};
use crate::vulkan::library::link;

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

/// Threads that run [`Job`]s in the order they are queued.
pub(super) struct Workers {
    device: ash::Device,
    cache: vk::PipelineCache,
    sender: Option<mpsc::Sender<Job>>,
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
        let (sender, receiver) = mpsc::channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        let threads = (0..count.max(1))
            .filter_map(|_| {
                let receiver = Arc::clone(&receiver);
                let device = device.clone();
                // A thread the system refuses is a worker less; with none,
                // `submit` runs each job on the caller's thread.
                std::thread::Builder::new()
                    .name("smolv-pipelines".to_owned())
                    .spawn(move || {
                        loop {
                            let job = match receiver.lock() {
                                Ok(receiver) => receiver.recv(),
                                Err(_) => return,
                            };
                            let Ok(job) = job else { return };
                            // SAFETY: the contract of `start`: the jobs' handles
                            // stay valid until `stop` has joined this thread.
                            unsafe { job.run(&device, cache) };
                        }
                    })
                    .ok()
            })
            .collect();
        Self { device: device.clone(), cache, sender: Some(sender), threads }
    }

    /// Queues `job`; where no worker is left to take it (one panicked, or
    /// they were stopped), runs it on this thread instead, so that no slot
    /// waits forever.
    pub(super) fn submit(&self, job: Job) {
        let unsent = match &self.sender {
            Some(sender) => sender.send(job).err().map(|e| e.0),
            None => Some(job),
        };
        if let Some(job) = unsent {
            // SAFETY: the contract of `start` covers every job queued.
            unsafe { job.run(&self.device, self.cache) };
        }
    }

    /// How many workers run (0 once stopped, or when the system refused
    /// every thread).
    pub(super) fn count(&self) -> usize {
        if self.sender.is_some() { self.threads.len() } else { 0 }
    }

    /// Lets the workers finish the jobs already queued, then joins them.
    pub(super) fn stop(&mut self) {
        // The workers see the channel closed once the queue is empty.
        self.sender = None;
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop();
    }
}
