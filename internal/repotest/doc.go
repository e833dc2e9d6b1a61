// Package repotest holds repository-wide meta tests: conventions that
// documents alone cannot enforce (AGENTS.md files and the tests they name,
// import layering, package docs, README and CI agreeing on the test command).
package repotest
