// Package markdown renders Markdown to HTML for the web view (webui):
// CommonMark blocks and inlines with GitHub's extensions (tables,
// strikethrough, task lists, autolinked URLs and addresses), raw HTML left
// out, text escaped, links with a scheme that can run code (javascript:,
// vbscript:, file:, data: but images) emptied.
//
// It renders what goldmark with extension.GFM and its safe defaults
// rendered in the view before 2026-12-01, byte for byte on 678 of 696
// inputs — the CommonMark spec's examples, goldmark's GFM cases and the
// notes in testdata (TestLikeGoldmark lists the others and why). goldmark left the binary
// because every yagent process — `yagent run`, `yagent --version` —
// initialised it (its regular expressions and case-folding table, 0.9 ms
// of every start) for pages only `yagent ui` shows. This package
// initialises nothing: its few regular expressions and its table of HTML
// block tags are built on first use.
//
// Differences kept on purpose: table cells align with the align attribute
// (goldmark's inline style is refused by the view's Content-Security-
// Policy), and link labels match by Unicode simple case folding.
package markdown
