// Package sleep curates a session's tool list from its own usage ("the
// session's sleep", seed 001). It never forbids: a tool it hides stays in
// the hidden-tools catalogue and comes back with one tool_load. It runs only
// when the reachable tools' schemas no longer fit a budget — a tool is never
// hidden for not being used, only because the set did not fit and it lost
// the ranking.
//
// The schedule is lazy: the first message after chats.next_sleep_at sends a
// nudge into a bounded channel (the turn never waits, the hot path makes no
// database query); a background worker captures the session with one UPDATE
// that moves the due time by retry_after (duplicates, overlaps and a crash
// mid-sleep are all covered) and runs the stage. The result applies from the
// next turn.
package sleep
