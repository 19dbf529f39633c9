// Package docblock keeps the generated blocks of the docs in step with the runs that produce
// them. A block is the text between a line `<!-- NAME begin ... -->` and a line
// `<!-- NAME end -->` of a page under docs/ or the README; the docs test counts everything else
// as hand-written.
package docblock
