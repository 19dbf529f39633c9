// Package docs holds no code: its tests keep the Markdown documentation in this folder and the
// README true to the code (the condition catalog, the phase table, the tests the docs cite).
package docs
