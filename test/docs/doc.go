// Package docs holds no code: its tests keep the README and docs/ true and small. They generate
// the tables that come from code (the condition catalog, the phase table, examples of Ready and
// lastOperation computed by package aggregate, kubelet releases compared by package status, the
// make targets) and fail when a committed block is stale (DOCS_WRITE=1 rewrites them); they
// count the hand-written bytes against each page's budget, resolve every link and check that
// the tests and make targets the docs name exist.
package docs
