// Package budget caps what a run may spend on models: a limit in US
// dollars (max_cost) and one in tokens (max_tokens), checked before every
// model call and charged after it, summed across processes and workers in
// a [Ledger] (the state database for local runs, PostgreSQL with
// queue.dsn).
//
// A run puts its [Budget] on the context ([With]); a batch entry adds its
// own scope ([Within]); whatever runs under that context — a delegation's
// whole subtree — is checked against, and charged to, every scope of the
// chain. [Guard] wraps a model client so that each call is checked and
// charged at the model's price.
//
// The check reads the ledger and the charge adds to it in one statement
// per scope, so concurrent callers never lose spend; calls already running
// when the limit is reached end normally, so a run stops within one model
// call per concurrent caller of its limit. A call refused by the check
// returns an error wrapping [ErrExceeded] that names the budget.
package budget
