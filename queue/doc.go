// Package queue runs a batch plan's delegations on many hosts: River (a job
// queue on PostgreSQL) carries each delegation from the coordinator — the
// one `yagent batch --queue` process, the board's only writer — to
// `yagent worker` processes, and carries each handoff back as the job's
// output. One machine keeps the in-process scheduler; this package is used
// only when a DSN is configured (queue.dsn, --queue).
//
// Contract:
//   - A job carries everything its delegation needs (the resolved agent
//     definition and tool names, the task, the board index and the context
//     pack as text), so a worker never reads the board. A worker runs it
//     with its own workspace and models and returns the note (handoff +
//     body) and the usage; it writes no note.
//   - A writing delegation the coordinator would isolate carries its base
//     (change.Capture: HEAD and the uncommitted changes as a binary patch);
//     the worker runs it in a worktree of its own checkout at that base,
//     removes the worktree and its branch, and returns the change as a
//     binary patch in the output (in the table yagent_job_patch past
//     maxOutputPatch, deleted when the job lands). The coordinator imports
//     it as the change's branch of its own repository (change.Import) and
//     lands the note with change: and the patch, as a local delegation's.
//   - The coordinator lands exactly one note per delegation and plan run,
//     whatever dies when. The note's key is "batch:<id>@<run>"; the table
//     yagent_batch_job records which job serves which delegation and whether
//     its note landed. A coordinator killed between writing the note and
//     recording it finds the note by its key when it resumes, records it,
//     and writes nothing again.
//   - Workers heartbeat (yagent_worker, every sixth of worker_timeout); a
//     worker killed or frozen mid-job has its running jobs handed to
//     another worker once it missed its heartbeats for worker_timeout
//     (any worker's beat rescues them), whatever rescue_after, which stays
//     the longest a delegation may run (River's rescuer still retries a job
//     past it), up to max_attempts. Each attempt holds a fencing token
//     (yagent_job_attempt): a stale attempt is stopped at its next model
//     call, tool call, landing or spend, and its outcome is dropped (River's
//     own write of its end too: fence.go); the last failure lands as one degraded note carrying
//     every attempt's error and the last output. A worker that cannot run a
//     job (a tool it lacks) fails the job with the reason, which the
//     coordinator shows; a worker stopped by a signal hands its jobs back
//     without spending an attempt (river.JobSnooze(0)).
//   - A worker whose model fails (transient after the client's retries, or
//     refusing it: 401/403, a missing model, or the job's ModelSettings
//     naming a model this host lacks or has under another id) fails the
//     attempt instead of sending an error note, says so once, and stops
//     fetching for WorkerOptions.HoldOff (River's queue removed from its
//     client, then added back); jobs it fetched meanwhile are snoozed
//     (no attempt spent). A task failure the model is not to blame for
//     lands as ever.
//   - One coordinator per plan run (lease.go): it holds the lease row of
//     its board and plan digest in yagent_run_lease, renewed every few
//     seconds, so a second coordinator (with or without --resume) is
//     refused, naming the holder, until the lease expires; a PostgreSQL
//     restart keeps the row. Every landing checks the lease's fencing token
//     in its transaction; a coordinator that cannot renew stops landing.
//   - A director session's background delegations take the same path
//     (background.go): Background is a Coordinator whose plan run is the
//     session, opened at its first background delegation; the job carries
//     the stem the director reserved, and the note lands there. Team task
//     claims of every run are rows of yagent_task_claim (claim.go,
//     ClaimsOf), one winner across hosts; team members themselves still run
//     in the director's process.
//   - A running attempt's progress (steps, last tool) is in its
//     yagent_job_attempt row (progress.go): the worker holding its token
//     writes it at most once a step, never failing the job for it;
//     Background reads it about once a second for the director's index
//     until the note lands; yagent workers and the web view show it.
//   - Schemas are versioned: River's migrations (rivermigrate) and yagent's
//     own tables (yagent_queue_schema) are applied in one transaction under
//     an advisory lock; a database from a newer yagent is refused, naming
//     both versions.
package queue
