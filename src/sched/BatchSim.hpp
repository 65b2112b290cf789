#pragma once
// Rigid parallel jobs on the cores of a platform's computers, as a batch
// system runs them (the job logs of the Parallel Workloads Archive; REFERENCE.md
// section 8): a job asks for a number of cores and holds them from its start
// to its end. Three queue policies:
//  - fcfs: jobs start in submit order; the first that does not fit blocks the rest;
//  - easy: EASY backfilling (Lifka's scheduler on the ANL SP): the first queued
//    job gets a reservation at the earliest time enough cores free up, judged
//    by the running jobs' estimates; a later job may start now if it fits now
//    and either ends (by its estimate) before that reservation or uses only
//    cores the reservation leaves spare;
//  - conservative: every queued job, in submit order, gets a reservation at the
//    earliest time it fits beside the running jobs and the reservations before
//    it; a job starts now when its reservation is now, so it delays no one.
// Estimates are the users' requested times (the run time when unknown); a job
// still running at its requested time is ended then, as a batch system's
// wall-clock limit does. Cores are taken first-fit in computer order.
#include "sched/ProcessSim.hpp"

#include <functional>
#include <string>
#include <vector>

namespace perfcast::sched {

/// What each process of a job uses, in UniMPP's terms (from a sidecar file or
/// the JSON workload); a job with none runs for its logged time.
struct JobResources {
  bool given = false;
  double instructions = 0;  ///< 0: the logged run time is the processing time
  double memory_mb = 0;
  double read_bytes = 0, write_bytes = 0;
  double messages = 0, message_bytes = 0;
};

/// One rigid parallel job.
struct RigidJob {
  long long id = 0;
  double submit_s = 0;
  int procs = 1;
  double run_s = 0;          ///< run time as logged
  double estimate_s = 0;     ///< requested time, else the run time
  JobResources resources;
  std::size_t line = 0;      ///< where it was read (0: not from a text file)
};

enum class BatchPolicy { Fcfs, Easy, Conservative };

/// A batch policy by name (fcfs, easy, conservative); throws Error when unknown.
BatchPolicy batch_policy(const std::string& name);
/// Whether a policy name is one of the batch policies.
bool is_batch_policy(const std::string& spec);
/// Names and meanings of the batch policies (for perfcast list).
std::vector<std::string> describe_batch_policies();

struct JobResult {
  long long id = 0;
  int procs = 0;
  int first_computer = -1; ///< the first computer of its cores
  double submit_s = 0, start_s = 0, finish_s = 0;
  bool killed = false;     ///< ended at its requested time
  double run_s() const { return finish_s - start_s; }
  double response_s() const { return finish_s - submit_s; }
  double waiting_s() const { return start_s - submit_s; }
  /// Bounded slowdown: response over max(run, 10 s), so short jobs do not dominate.
  double slowdown() const;
};

/// The run time of a job on its cores (first-fit counts per computer) with
/// `memory_in_use_mb` already used on each: the slowest computer's UniMPP time.
double job_run_time(const RigidJob& job, const std::vector<ComputerSpec>& computers,
                    const std::vector<std::pair<int, int>>& cores_on, const std::vector<double>& memory_in_use_mb);

/// Simulates the jobs (sorted by submit time, ties by id) to completion;
/// `on_busy_change` (optional) receives (time, computer, busy cores).
std::vector<JobResult> simulate_jobs(const std::vector<ComputerSpec>& computers, std::vector<RigidJob> jobs,
                                     BatchPolicy policy,
                                     const std::function<void(double, int, int)>& on_busy_change = {});

} // namespace perfcast::sched
