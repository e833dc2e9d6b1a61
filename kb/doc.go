// Package kb is yagent's knowledge base: a store of notes shared by people
// and agents — one SQLite file, or a PostgreSQL database several gateway
// replicas share — and the 21 intent tools agents use on it (SPEC.md §9,
// seed 004 "Интент-инструменты").
//
// # Model
//
// Notes live in domains. A project's domain holds shared notes (class
// user-doc) in folders, a title unique within its folder; projects sit in spaces and are named by handles
// ("space/slug", or "space" for a space's root project), taken verbatim from
// answers. Each principal (a person) also has a personal domain, implied by
// the caller, holding the user profile (class user-profile) and the agents'
// private memory about projects (class agent-memory). Notes are linked by
// typed edges, including forward references to titles not written yet;
// [[links]] name a note by title, path or alias, and files a body embeds
// are recorded as attachments. Import brings in a folder of Markdown (an
// Obsidian vault, a docs tree), knowing each note by its file's path.
// Renamed notes and projects keep their old titles and handles as aliases.
// Deleted notes go to a trash only a person can restore or empty. Every
// version is kept as a revision with its provenance: who (person or agent,
// for which principal, through which token), how (tool), where (client and
// session) and when.
//
// # Callers
//
// Every tool takes a Caller. Authenticate turns a token into an agent
// Caller; PersonCaller is a person at the CLI. A read caller may call read
// tools only; every call checks access to the project or personal domain it
// touches, and a refused call changes nothing.
//
// # Tools
//
// Each tool is a Store method with typed input and output structs whose
// json and jsonschema tags describe the MCP schema. Tools lists them with
// static descriptions (tooldesc/*.md) and MCP annotations; Call runs one
// from JSON arguments. Errors the model can fix carry a code (ErrorCode):
// invalidArgument, notFound, forbidden, conflict, versionConflict.
//
// # Search
//
// Search is hybrid: BM25 over two FTS5 indexes (porter unicode61), titles
// with headings and bodies with tags, times a prior that puts changelogs
// below the pages they mention, fused by reciprocal rank (k = 60) with
// cosine similarity of vectors from an injected Embedder, stored as float32
// blobs and compared with sqlite-vec's vec_distance_cosine (past a few
// thousand candidates, after a shortlist by the Hamming distance of their
// sign bits, kept in memory and checked against a change log). Without a
// working embedder it runs on full text alone and reports mode "fts".
//
// # Backends
//
// Open takes a SQLite file, OpenPostgres a PostgreSQL DSN; both run the same
// tools through the same SQL, a dialect rebinding its placeholders and
// supplying what differs: FTS5 and sqlite-vec on SQLite; on PostgreSQL,
// tsvector documents ranked by BM25 over ts_rank_cd frequencies (Russian
// and English Snowball stemmers) and vectors compared by pgvector where the
// server has it, else in the process.
//
// # Concurrency and durability
//
// The database runs in WAL mode with a 5 s busy timeout; writes are
// BEGIN IMMEDIATE transactions, serialised within a process, so several
// yagent processes may share one file. A write either commits whole or
// changes nothing (batches commit per item through savepoints). Note edits
// are compare-and-swap on the note's version. Embeddings are refreshed after
// the write commits and are best effort. The schema version is kept in
// PRAGMA user_version and the schema_version table; Open migrates forward
// and refuses newer or foreign files without touching them. On PostgreSQL
// every write transaction first takes a transaction-scoped advisory lock
// (the single writer of SQLite, across every replica), note edits are the
// same one-statement compare-and-swap, and the schema version is the
// largest in yagent_kb.schema_version.
package kb
