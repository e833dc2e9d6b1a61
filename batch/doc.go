// Package batch runs plans of delegations (a YAML file: ids, agents,
// tasks, dependencies, context refs) without a director turn: it parses and
// validates a plan, schedules its delegations in dependency order on an
// Executor (the in-process sub-agent runner, or a queue coordinator), skips
// the dependants of what failed, resumes by the key each note carries, and
// reports. The web view reads a running batch's state through
// StateFromRollout.
package batch
